/* yamldoc: libyaml events -> a tree of nodes with positions. */
#include "yamldoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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

static bool push_child(struct ynode *parent, struct ynode *key, struct ynode *item)
{
    size_t n = parent->count + 1;
    struct ynode **items = realloc(parent->items, n * sizeof *items);
    if (!items)
        return false;
    parent->items = items;
    if (parent->kind == YNODE_MAP) {
        struct ynode **keys = realloc(parent->keys, n * sizeof *keys);
        if (!keys)
            return false;
        parent->keys = keys;
        keys[n - 1] = key;
    }
    items[n - 1] = item;
    parent->count = n;
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
            for (size_t i = 0; i < parent->count; i++) {
                if (strcmp(parent->keys[i]->value, key->value) == 0) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "key '%.80s' appears twice (first on line %d)",
                             key->value, parent->keys[i]->line);
                    snprintf(b->err, b->err_len, "%s:%d:%d: %s", b->name, key->line, key->col,
                             msg);
                    node_free(key);
                    return false;
                }
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
        n = node_new(ev->type == YAML_MAPPING_START_EVENT ? YNODE_MAP : YNODE_SEQ,
                     &ev->start_mark);
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
    struct builder b = {.name = name, .text = text, .text_len = len, .err = err,
                        .err_len = err_len};
    err[0] = '\0';
    if (!yaml_parser_initialize(&b.parser)) {
        snprintf(err, err_len, "%s: cannot start the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    struct ydoc *doc = build_doc(&b);
    yaml_parser_delete(&b.parser);
    return doc;
}

/* Setup and catalog files are small; anything this large is a mistake. */
enum { YDOC_MAX_FILE_BYTES = 64 << 20 };

struct ydoc *ydoc_load_file(const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *grown = cap <= YDOC_MAX_FILE_BYTES ? realloc(text, cap) : NULL;
            if (!grown) {
                free(text);
                fclose(f);
                snprintf(err, err_len, "%s: file too large or out of memory", path);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (read_error) {
        free(text);
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
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
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->keys[i]->value, key) == 0)
            return map->items[i];
    return NULL;
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
