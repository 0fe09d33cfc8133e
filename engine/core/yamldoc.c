/* yamldoc: libyaml events -> a tree of nodes with positions. */
#include "yamldoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "infile.h"

/* Nesting deeper than this is certainly not a setup file; refusing it keeps a
 * hostile document from exhausting the stack. */
enum { YDOC_MAX_DEPTH = 64 };

struct builder {
    yaml_parser_t parser;
    const char *name;
    const char *text; /* the whole input, to turn byte offsets into lines */
    size_t text_len;
    char *err;
    size_t err_len;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

static void node_free(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->count; i++) {
        if (n->keys)
            node_free(n->keys[i]);
        if (n->items)
            node_free(n->items[i]);
    }
    free(n->keys);
    free(n->items);
    idindex_free(&n->index);
    free(n->value);
    free(n);
}

static struct ynode *node_new(enum ynode_kind kind, const yaml_mark_t *mark)
{
    struct ynode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = (int)mark->line + 1;
    n->col = (int)mark->column + 1;
    return n;
}

static void set_err(struct builder *b, const yaml_mark_t *mark, const char *msg)
{
    snprintf(b->err, b->err_len, "%s:%d:%d: %s", b->name, (int)mark->line + 1,
             (int)mark->column + 1, msg);
}

/* Line and column of a byte offset (libyaml reports encoding errors by
 * offset only). */
static yaml_mark_t mark_at_offset(const struct builder *b, size_t offset)
{
    yaml_mark_t m = {0, 0, 0};
    m.index = offset;
    for (size_t i = 0; i < offset && i < b->text_len; i++) {
        if (b->text[i] == '\n') {
            m.line++;
            m.column = 0;
        } else if (((unsigned char)b->text[i] & 0xC0) != 0x80) {
            m.column++; /* count characters, not UTF-8 continuation bytes */
        }
    }
    return m;
}

static bool next_event(struct builder *b, yaml_event_t *ev)
{
    if (yaml_parser_parse(&b->parser, ev))
        return true;
    const yaml_parser_t *p = &b->parser;
    yaml_mark_t where = p->problem_mark;
    if (p->error == YAML_READER_ERROR) {
        size_t at = p->problem_offset;
        /* "invalid trailing octet" is reported at the byte after the
         * character; point at the character itself. */
        if (p->problem && strstr(p->problem, "trailing"))
            while (at > 0 && at <= b->text_len && ((unsigned char)b->text[at - 1] & 0xC0) == 0x80)
                at--;
        if (p->problem && strstr(p->problem, "trailing") && at > 0)
            at--;
        where = mark_at_offset(b, at);
    } else if (p->context && p->problem &&
               (strstr(p->problem, "end of stream") || strstr(p->problem, "expected ',' or"))) {
        /* An unclosed quote or bracket is noticed lines later (often at
         * the end of the file); the place to fix is where it was opened. */
        where = p->context_mark;
    }
    const yaml_mark_t *mark = &where;
    char msg[256];
    if (p->error == YAML_READER_ERROR)
        snprintf(msg, sizeof msg, "not valid UTF-8 text: %s",
                 p->problem ? p->problem : "unreadable bytes");
    else
        snprintf(msg, sizeof msg, "YAML syntax error: %s%s%s",
                 p->problem ? p->problem : "unreadable document", p->context ? " " : "",
                 p->context ? p->context : "");
    set_err(b, mark, msg);
    return false;
}

static const char *map_key_at(const void *map, size_t i)
{
    return ((const struct ynode *)map)->keys[i]->value;
}

/* Appends a child; for maps the key must not be present already. */
static bool push_child(struct ynode *parent, struct ynode *key, struct ynode *item)
{
    if (parent->count == parent->cap) {
        size_t cap = parent->cap ? 2 * parent->cap : 4;
        struct ynode **items = realloc(parent->items, cap * sizeof *items);
        if (!items)
            return false;
        parent->items = items;
        if (parent->kind == YNODE_MAP) {
            struct ynode **keys = realloc(parent->keys, cap * sizeof *keys);
            if (!keys)
                return false;
            parent->keys = keys;
        }
        parent->cap = cap;
    }
    if (parent->kind == YNODE_MAP) {
        parent->keys[parent->count] = key;
        if (!idindex_add(&parent->index, parent->count, map_key_at, parent))
            return false;
    }
    parent->items[parent->count++] = item;
    return true;
}

static struct ynode *build_node(struct builder *b, yaml_event_t *ev, int depth);

/* Reads children until the matching end event. */
static bool build_children(struct builder *b, struct ynode *parent, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (!next_event(b, &ev))
            return false;
        if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return true;
        }
        struct ynode *key = NULL;
        if (parent->kind == YNODE_MAP) {
            if (ev.type != YAML_SCALAR_EVENT) {
                set_err(b, &ev.start_mark, "a mapping key must be a plain word");
                yaml_event_delete(&ev);
                return false;
            }
            key = build_node(b, &ev, depth + 1);
            yaml_event_delete(&ev);
            if (!key)
                return false;
            size_t first = idindex_find(&parent->index, key->value, map_key_at, parent);
            if (first != (size_t)-1) {
                snprintf(b->err, b->err_len,
                         "%s:%d:%d: key '%.80s' appears twice (first on line %d)", b->name,
                         key->line, key->col, key->value, parent->keys[first]->line);
                node_free(key);
                return false;
            }
            if (!next_event(b, &ev)) {
                node_free(key);
                return false;
            }
        }
        struct ynode *item = build_node(b, &ev, depth + 1);
        yaml_event_delete(&ev);
        if (!item || !push_child(parent, key, item)) {
            node_free(key);
            node_free(item);
            if (!item && b->err[0] == '\0')
                snprintf(b->err, b->err_len, "%s: out of memory", b->name);
            return false;
        }
    }
}

/* True for bytes that must not reach a terminal from an input file: C0
 * controls other than tab and newline (ESC starts terminal commands), DEL. */
size_t yamldoc_unicode_control_len(const unsigned char *s, size_t n)
{
    if (n >= 2 && s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F)
        return 2;
    if (n >= 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))
        return 3;
    return 0;
}

static bool is_control(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

/* Tags (`!!str 5`, `!foo`) would change what a value means; mlviz reads
 * every value by the field it belongs to, so any tag is refused rather than
 * silently ignored. */
static bool tag_ok(struct builder *b, const yaml_event_t *ev, const yaml_char_t *tag)
{
    if (!tag)
        return true;
    char shown[64], msg[200];
    size_t n = 0;
    for (const yaml_char_t *c = tag; *c && n < sizeof shown - 1; c++)
        shown[n++] = is_control(*c) || *c == '\t' || *c == '\n' ? '?' : (char)*c;
    shown[n] = '\0';
    snprintf(msg, sizeof msg,
             "YAML tags such as '%s' are not supported in mlviz files (remove "
             "it; quote the value if it is text)",
             shown);
    set_err(b, &ev->start_mark, msg);
    return false;
}

/* A NUL character (written "\0" in a quoted string) would silently cut the
 * text short, and an escape such as "\e" would reach the terminal in
 * messages and views: both are refused with the place. */
static bool text_ok(struct builder *b, const yaml_event_t *ev)
{
    const unsigned char *v = ev->data.scalar.value;
    size_t chars = 0; /* characters before v[i], not UTF-8 bytes */
    for (size_t i = 0; i < ev->data.scalar.length; i++) {
        size_t ulen = yamldoc_unicode_control_len(v + i, ev->data.scalar.length - i);
        if (v[i] != 0 && !is_control(v[i]) && ulen == 0) {
            chars += (v[i] & 0xC0) != 0x80;
            continue;
        }
        char msg[160];
        if (ulen)
            snprintf(msg, sizeof msg,
                     "text contains a Unicode control or line-break character (U+%04X) after "
                     "%zu character%s",
                     ulen == 2 ? v[i + 1] : 0x2000u + (v[i + 2] & 0x3Fu), chars,
                     chars == 1 ? "" : "s");
        else if (v[i] == 0)
            snprintf(msg, sizeof msg, "text contains a NUL character (\\0) after %zu character%s",
                     chars, chars == 1 ? "" : "s");
        else
            snprintf(msg, sizeof msg,
                     "text contains a control character (code %u) after %zu character%s", v[i],
                     chars, chars == 1 ? "" : "s");
        set_err(b, &ev->start_mark, msg);
        return false;
    }
    return true;
}

static struct ynode *build_node(struct builder *b, yaml_event_t *ev, int depth)
{
    if (depth > YDOC_MAX_DEPTH) {
        set_err(b, &ev->start_mark, "nesting is too deep");
        return NULL;
    }
    struct ynode *n = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        if (ev->data.scalar.anchor) {
            set_err(b, &ev->start_mark, "anchors (&name) are not supported in mlviz files");
            return NULL;
        }
        if (!tag_ok(b, ev, ev->data.scalar.tag) || !text_ok(b, ev))
            return NULL;
        n = node_new(YNODE_SCALAR, &ev->start_mark);
        if (!n)
            break;
        n->value = dup_str((const char *)ev->data.scalar.value);
        n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
                    ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
                    ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
        if (!n->value) {
            node_free(n);
            n = NULL;
        }
        return n;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        if ((ev->type == YAML_MAPPING_START_EVENT && ev->data.mapping_start.anchor) ||
            (ev->type == YAML_SEQUENCE_START_EVENT && ev->data.sequence_start.anchor)) {
            set_err(b, &ev->start_mark, "anchors (&name) are not supported in mlviz files");
            return NULL;
        }
        if (!tag_ok(b, ev,
                    ev->type == YAML_MAPPING_START_EVENT ? ev->data.mapping_start.tag
                                                         : ev->data.sequence_start.tag))
            return NULL;
        n = node_new(ev->type == YAML_MAPPING_START_EVENT ? YNODE_MAP : YNODE_SEQ, &ev->start_mark);
        if (!n)
            break;
        if (!build_children(b, n, depth)) {
            node_free(n);
            return NULL;
        }
        return n;
    case YAML_ALIAS_EVENT:
        set_err(b, &ev->start_mark, "aliases (*name) are not supported in mlviz files");
        return NULL;
    default:
        set_err(b, &ev->start_mark, "unexpected YAML structure");
        return NULL;
    }
    snprintf(b->err, b->err_len, "%s: out of memory", b->name);
    return NULL;
}

static struct ydoc *build_doc(struct builder *b)
{
    struct ydoc *doc = calloc(1, sizeof *doc);
    if (!doc || !(doc->file = dup_str(b->name))) {
        free(doc);
        snprintf(b->err, b->err_len, "%s: out of memory", b->name);
        return NULL;
    }
    bool in_doc = false, ok = true;
    int documents = 0;
    for (;;) {
        yaml_event_t ev;
        if (!next_event(b, &ev)) {
            ok = false;
            break;
        }
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (type == YAML_DOCUMENT_START_EVENT) {
            if (++documents > 1) {
                set_err(b, &ev.start_mark, "only one YAML document per file is allowed");
                yaml_event_delete(&ev);
                ok = false;
                break;
            }
            in_doc = true;
        } else if (type == YAML_DOCUMENT_END_EVENT) {
            in_doc = false;
        } else if (in_doc && (type == YAML_SCALAR_EVENT || type == YAML_MAPPING_START_EVENT ||
                              type == YAML_SEQUENCE_START_EVENT || type == YAML_ALIAS_EVENT)) {
            doc->root = build_node(b, &ev, 0);
            if (!doc->root) {
                yaml_event_delete(&ev);
                ok = false;
                break;
            }
        }
        yaml_event_delete(&ev);
    }
    if (!ok) {
        ydoc_free(doc);
        return NULL;
    }
    return doc;
}

struct ydoc *ydoc_load_string(const char *name, const char *text, size_t len, char *err,
                              size_t err_len)
{
    struct builder b = {
        .name = name, .text = text, .text_len = len, .err = err, .err_len = err_len};
    err[0] = '\0';
    if (len > INFILE_MAX_BYTES) {
        snprintf(err, err_len, "%s: larger than %d MiB", name, INFILE_MAX_BYTES >> 20);
        return NULL;
    }
    if (!yaml_parser_initialize(&b.parser)) {
        snprintf(err, err_len, "%s: cannot start the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    struct ydoc *doc = build_doc(&b);
    yaml_parser_delete(&b.parser);
    return doc;
}

struct ydoc *ydoc_load_file(const char *path, char *err, size_t err_len)
{
    char *text;
    size_t len;
    if (!infile_read(path, &text, &len, err, err_len))
        return NULL;
    struct ydoc *doc = ydoc_load_string(path, text, len, err, err_len);
    free(text);
    return doc;
}

void ydoc_free(struct ydoc *doc)
{
    if (!doc)
        return;
    node_free(doc->root);
    free(doc->file);
    free(doc);
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
    if (!map || map->kind != YNODE_MAP)
        return NULL;
    size_t i = idindex_find(&map->index, key, map_key_at, map);
    return i == (size_t)-1 ? NULL : map->items[i];
}

bool ynode_is_null(const struct ynode *node)
{
    if (!node || node->kind != YNODE_SCALAR || node->quoted)
        return false;
    const char *v = node->value;
    return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

const char *ynode_kind_name(const struct ynode *node)
{
    if (!node)
        return "nothing";
    switch (node->kind) {
    case YNODE_MAP:
        return "a mapping";
    case YNODE_SEQ:
        return "a list";
    default:
        return "a single value";
    }
}
