/* fields: table-driven binding of YAML and text onto C structs. */
#include "fields.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idindex.h"
#include "units.h"
#include "yamldoc.h"

static void *at(void *obj, const struct field *f)
{
    return (char *)obj + f->offset;
}
static const void *cat_(const void *obj, const struct field *f)
{
    return (const char *)obj + f->offset;
}

/* ---- lookup by path --------------------------------------------------------------
 * Tables are indexed by path on first use (idindex), so a lookup costs one
 * hash instead of a scan: Lua's s:set and every get/set by path call it per
 * value. The index of a table is built once under a lock and never changed
 * after it is published, so threads (the planner's) read it without one. A
 * hit is checked against the table itself and a miss falls back to the scan,
 * so an index is never trusted beyond what it saves: a table that lives on
 * the stack may reuse an address an index was built for. */

enum { INDEXED_TABLES_MAX = 32 };
struct table_index {
    const struct field_table *table;
    const struct field *fields;
    size_t count;
    struct idindex index;
};
static struct table_index indexed[INDEXED_TABLES_MAX];
static size_t indexed_count; /* published with release, read with acquire */
static pthread_mutex_t indexed_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *path_at(const void *ctx, size_t i)
{
    const struct table_index *x = ctx;
    return i < x->count ? x->fields[i].path : "";
}

static const struct table_index *index_of(const struct field_table *t)
{
    size_t n = __atomic_load_n(&indexed_count, __ATOMIC_ACQUIRE);
    for (size_t k = 0; k < n; k++)
        if (indexed[k].table == t && indexed[k].fields == t->fields && indexed[k].count == t->count)
            return &indexed[k];
    const struct table_index *found = NULL;
    pthread_mutex_lock(&indexed_lock);
    n = indexed_count;
    for (size_t k = 0; k < n && !found; k++) /* another thread may have built it */
        if (indexed[k].table == t && indexed[k].fields == t->fields && indexed[k].count == t->count)
            found = &indexed[k];
    if (!found && n < INDEXED_TABLES_MAX) {
        struct table_index *x = &indexed[n];
        *x = (struct table_index){t, t->fields, t->count, {0}};
        bool ok = true;
        for (size_t i = 0; ok && i < t->count; i++)
            if (idindex_find(&x->index, t->fields[i].path, path_at, x) == (size_t)-1)
                ok = idindex_add(&x->index, i, path_at, x); /* the first of twins wins */
        if (ok) {
            found = x;
            __atomic_store_n(&indexed_count, n + 1, __ATOMIC_RELEASE);
        } else {
            idindex_free(&x->index);
        }
    }
    pthread_mutex_unlock(&indexed_lock);
    return found;
}

const struct field *fields_find(const struct field_table *t, const char *path)
{
    const struct table_index *x = index_of(t);
    if (x) {
        size_t i = idindex_find(&x->index, path, path_at, x);
        if (i != (size_t)-1)
            return &t->fields[i];
    }
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->fields[i].path, path) == 0)
            return &t->fields[i];
    return NULL;
}

/* Edit distance, capped: long words are not compared beyond 63 characters. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63)
        la = 63;
    if (lb > 63)
        lb = 63;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The distance is at least the difference of the lengths (both cut at 63
 * as edit_distance cuts them): candidates that differ more than a limit in
 * length are skipped without the quadratic comparison. */
static size_t length_gap(size_t la, const char *b)
{
    size_t lb = strlen(b);
    la = la > 63 ? 63 : la;
    lb = lb > 63 ? 63 : lb;
    return la > lb ? la - lb : lb - la;
}

const char *fields_suggest_word(const char *word, const char *const *words, size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, word_len = strlen(word);
    for (size_t i = 0; i < n; i++) {
        if (!words[i] || length_gap(word_len, words[i]) >= best_d)
            continue;
        size_t d = edit_distance(word, words[i]);
        if (d < best_d) {
            best_d = d;
            best = words[i];
        }
    }
    /* Only suggest when the word is plausibly a typo of the candidate. */
    size_t limit = word_len < 6 ? 2 : word_len / 3 + 1;
    return best && best_d <= limit ? best : NULL;
}

static const char *leaf_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

const char *fields_suggest(const struct field_table *t, const char *path)
{
    /* Compare whole paths ("training.tensor_paralel"), and also last
     * components alone, so a key put under the wrong section
     * ("training.nodes") finds its real place ("cluster.nodes"). */
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    size_t len = strlen(path);
    size_t limit = len < 6 ? 2 : len / 4 + 2;
    const char *leaf = leaf_of(path);
    size_t leaf_len = strlen(leaf);
    size_t leaf_limit = leaf_len < 6 ? 1 : leaf_len / 4 + 1;
    for (size_t i = 0; i < t->count; i++) {
        if (length_gap(len, t->fields[i].path) > limit)
            continue;
        size_t d = edit_distance(path, t->fields[i].path);
        if (d <= limit && d < best_d) {
            best_d = d;
            best = t->fields[i].path;
        }
    }
    if (best)
        return best;
    for (size_t i = 0; i < t->count; i++) {
        if (length_gap(leaf_len, leaf_of(t->fields[i].path)) > leaf_limit)
            continue;
        size_t d = edit_distance(leaf, leaf_of(t->fields[i].path));
        if (d <= leaf_limit && d < best_d) {
            best_d = d;
            best = t->fields[i].path;
        }
    }
    return best;
}

void fields_apply_defaults(const struct field_table *t, void *obj)
{
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        void *p = at(obj, f);
        switch (f->type) {
        case FIELD_INT:
        case FIELD_ENUM:
            *(int *)p = (int)f->def;
            break;
        case FIELD_NUM:
        case FIELD_NUM_AUTO:
            *(double *)p = f->def;
            break;
        case FIELD_BOOL:
            *(bool *)p = f->def != 0;
            break;
        case FIELD_STR:
        case FIELD_REF:
            snprintf((char *)p, FIELD_STR_LEN, "%s", f->def_str ? f->def_str : "");
            break;
        }
    }
}

static bool parse_number(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return false;
    while (*end && isspace((unsigned char)*end))
        end++;
    if (*end || !isfinite(v) || units_decimal_length(s) != (size_t)(end - s))
        return false;
    *out = v;
    return true;
}

bool fields_parse_number(const char *text, double *value)
{
    return parse_number(text, value);
}

/* A well-formed number too large for a double (1e400). */
static bool overflows(const char *s)
{
    size_t n = units_decimal_length(s);
    return n > 0 && s[n] == '\0' && !isfinite(strtod(s, NULL));
}

static int enum_index(const struct field *f, const char *text)
{
    for (int i = 0; f->choices[i]; i++)
        if (strcmp(f->choices[i], text) == 0)
            return i;
    return -1;
}

void fields_describe_type(const struct field *f, char *buf, size_t len)
{
    switch (f->type) {
    case FIELD_INT:
        snprintf(buf, len,
                 f->flags & FIELD_INT_AUTO ? "a whole number or 'auto'" : "a whole number");
        break;
    case FIELD_NUM:
        snprintf(buf, len, "a number");
        break;
    case FIELD_NUM_AUTO:
        snprintf(buf, len, "a number or 'auto'");
        break;
    case FIELD_BOOL:
        snprintf(buf, len, "true or false");
        break;
    case FIELD_STR:
        snprintf(buf, len, "text");
        break;
    case FIELD_REF:
        snprintf(buf, len, "a catalog id");
        break;
    case FIELD_ENUM: {
        size_t used = (size_t)snprintf(buf, len, "one of ");
        for (int i = 0; f->choices[i] && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", f->choices[i]);
        break;
    }
    }
}

/* Strings longer than FIELD_STR_LEN live in larger arrays (catalog heads);
 * their capacity is derived from the field's max when set. */
static size_t str_capacity(const struct field *f)
{
    return f->max >= FIELD_STR_LEN ? (size_t)f->max : FIELD_STR_LEN;
}

/* A number for messages: whole numbers in full (16777216, not 1.67772e+07),
 * others in the fewest digits that read back to the same double. */
static const char *show_number(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v + 0.0);
        return buf;
    }
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

void fields_describe_range(const struct field *f, char *buf, size_t len)
{
    if (f->type != FIELD_INT && f->type != FIELD_NUM && f->type != FIELD_NUM_AUTO) {
        snprintf(buf, len, "%s", "");
        return;
    }
    char lo[32], hi[32];
    snprintf(buf, len, "%s%s..%s", (f->flags & FIELD_EXCL_MIN) ? ">" : "",
             show_number(f->min, lo, sizeof lo), show_number(f->max, hi, sizeof hi));
}

static bool range_ok(const struct field *f, double v, char *err, size_t err_len)
{
    bool low = (f->flags & FIELD_EXCL_MIN) ? v <= f->min : v < f->min;
    if (low || v > f->max) {
        char lo[32], hi[32], got[32];
        show_number(f->min, lo, sizeof lo);
        show_number(f->max, hi, sizeof hi);
        show_number(v, got, sizeof got);
        if (f->flags & FIELD_EXCL_MIN)
            snprintf(err, err_len, "%s must be above %s and at most %s (got %s)", f->path, lo, hi,
                     got);
        else
            snprintf(err, err_len, "%s must be between %s and %s (got %s)", f->path, lo, hi, got);
        return false;
    }
    return true;
}

/* Numbers so small that arithmetic on them loses all precision (subnormal
 * doubles such as 4.9e-324) are refused: dividing by one gives inf. */
static bool usable_number(const struct field *f, double v, char *err, size_t err_len)
{
    if (!isfinite(v)) {
        snprintf(err, err_len, "%s must be a finite number", f->path);
        return false;
    }
    if (v != 0 && fabs(v) < DBL_MIN) {
        snprintf(err, err_len, "%s: %g is too small to compute with (write 0 or a number above %g)",
                 f->path, v, DBL_MIN);
        return false;
    }
    return true;
}

bool fields_set_number(const struct field *f, void *obj, double v, char *err, size_t err_len)
{
    void *p = at(obj, f);
    if (!usable_number(f, v, err, err_len))
        return false;
    v += 0.0; /* -0 becomes 0: no "-0" in any output */
    switch (f->type) {
    case FIELD_INT:
        if (v != floor(v)) {
            snprintf(err, err_len, "%s must be a whole number (got %g)", f->path, v);
            return false;
        }
        if (!range_ok(f, v, err, err_len))
            return false;
        *(int *)p = (int)v;
        return true;
    case FIELD_NUM:
    case FIELD_NUM_AUTO:
        /* The sentinels for "auto" and "absent" are not numbers a user can
         * give: those are set by fields_set_auto and the words auto / null. */
        if (!range_ok(f, v, err, err_len))
            return false;
        *(double *)p = v;
        return true;
    case FIELD_BOOL:
        *(bool *)p = v != 0;
        return true;
    case FIELD_ENUM: {
        int n = 0;
        while (f->choices[n])
            n++;
        if (v != floor(v) || v < 0 || v >= n) {
            snprintf(err, err_len, "%s: choice %g out of range", f->path, v);
            return false;
        }
        *(int *)p = (int)v;
        return true;
    }
    default:
        snprintf(err, err_len, "%s takes text, not a number", f->path);
        return false;
    }
}

bool fields_set_auto(const struct field *f, void *obj, char *err, size_t err_len)
{
    if (f->type == FIELD_NUM_AUTO) {
        *(double *)at(obj, f) = FIELD_AUTO;
        return true;
    }
    if (f->type == FIELD_NUM && (f->flags & FIELD_NULLABLE)) {
        *(double *)at(obj, f) = FIELD_ABSENT;
        return true;
    }
    if (f->type == FIELD_INT && (f->flags & FIELD_INT_AUTO)) {
        *(int *)at(obj, f) = 0;
        return true;
    }
    snprintf(err, err_len, "%s has no automatic value", f->path);
    return false;
}

/* Text stored in a field is shown on the terminal and written into CSV,
 * JSON and YAML: control characters (escape sequences, newlines) are
 * refused. */
static bool text_ok(const struct field *f, const char *text, size_t cap, char *err, size_t err_len)
{
    size_t n = strlen(text);
    if (n >= cap) {
        snprintf(err, err_len, "%s%s is too long (%zu characters, at most %zu)", f->path,
                 f->type == FIELD_REF ? ": id" : "", n, cap - 1);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (yamldoc_unicode_control_len((const unsigned char *)text + i, n - i)) {
            snprintf(err, err_len,
                     "%s contains a Unicode control or line-break character at character %zu",
                     f->path, i + 1);
            return false;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(err, err_len, "%s contains a control character (code %u) at character %zu",
                     f->path, c, i + 1);
            return false;
        }
    }
    return true;
}

bool fields_set_text(const struct field *f, void *obj, const char *text, char *err, size_t err_len)
{
    char what[200];
    double v;
    switch (f->type) {
    case FIELD_INT:
    case FIELD_NUM:
        if ((f->flags & FIELD_NULLABLE) && strcmp(text, "null") == 0)
            return fields_set_auto(f, obj, err, err_len);
        if ((f->flags & FIELD_INT_AUTO) && strcmp(text, "auto") == 0)
            return fields_set_auto(f, obj, err, err_len);
        if (!parse_number(text, &v))
            break;
        return fields_set_number(f, obj, v, err, err_len);
    case FIELD_NUM_AUTO:
        if (strcmp(text, "auto") == 0)
            return fields_set_auto(f, obj, err, err_len);
        if (!parse_number(text, &v))
            break;
        return fields_set_number(f, obj, v, err, err_len);
    case FIELD_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0 || strcmp(text, "on") == 0) {
            *(bool *)at(obj, f) = true;
            return true;
        }
        if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0 || strcmp(text, "off") == 0) {
            *(bool *)at(obj, f) = false;
            return true;
        }
        break;
    case FIELD_ENUM: {
        int i = enum_index(f, text);
        if (i < 0) {
            fields_describe_type(f, what, sizeof what);
            int nchoices = 0;
            while (f->choices[nchoices])
                nchoices++;
            const char *near =
                fields_suggest_word(text, (const char *const *)f->choices, (size_t)nchoices);
            snprintf(err, err_len, "%s must be %s (got '%s')%s%s%s", f->path, what, text,
                     near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            return false;
        }
        *(int *)at(obj, f) = i;
        return true;
    }
    case FIELD_STR:
    case FIELD_REF:
        if (!text_ok(f, text, str_capacity(f), err, err_len))
            return false;
        snprintf((char *)at(obj, f), str_capacity(f), "%s", text);
        return true;
    }
    fields_describe_type(f, what, sizeof what);
    if (overflows(text))
        snprintf(err, err_len, "%s: %s is far too large (at most %g)", f->path, text, f->max);
    else
        snprintf(err, err_len, "%s must be %s (got '%s')", f->path, what, text);
    return false;
}

double fields_get_number(const struct field *f, const void *obj)
{
    const void *p = cat_(obj, f);
    switch (f->type) {
    case FIELD_INT:
    case FIELD_ENUM:
        return *(const int *)p;
    case FIELD_NUM:
    case FIELD_NUM_AUTO:
        return *(const double *)p;
    case FIELD_BOOL:
        return *(const bool *)p ? 1.0 : 0.0;
    default:
        return 0.0;
    }
}

const char *fields_get_string(const struct field *f, const void *obj)
{
    const void *p = cat_(obj, f);
    if (f->type == FIELD_ENUM) {
        int i = *(const int *)p;
        return f->choices[i];
    }
    if (f->type == FIELD_STR || f->type == FIELD_REF)
        return (const char *)p;
    return NULL;
}

void fields_format(const struct field *f, const void *obj, char *buf, size_t len)
{
    double v;
    switch (f->type) {
    case FIELD_INT:
        if ((f->flags & FIELD_INT_AUTO) && *(const int *)cat_(obj, f) == 0)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%d", *(const int *)cat_(obj, f));
        return;
    case FIELD_NUM:
    case FIELD_NUM_AUTO:
        v = *(const double *)cat_(obj, f);
        if (f->type == FIELD_NUM_AUTO && v == FIELD_AUTO)
            snprintf(buf, len, "auto");
        else if ((f->flags & FIELD_NULLABLE) && v == FIELD_ABSENT)
            snprintf(buf, len, "-");
        else
            snprintf(buf, len, "%.6g", v);
        return;
    case FIELD_BOOL:
        snprintf(buf, len, "%s", *(const bool *)cat_(obj, f) ? "true" : "false");
        return;
    default:
        snprintf(buf, len, "%s", fields_get_string(f, obj));
        return;
    }
}

static size_t field_index(const struct field_table *t, const struct field *f)
{
    return (size_t)(f - t->fields);
}

/* Binds one scalar onto its field, with position-bearing messages. */
static bool bind_scalar(const struct field *f, const struct ynode *v, const char *file, void *obj,
                        char *err, size_t err_len)
{
    char msg[400], what[200];
    if (v->kind != YNODE_SCALAR) {
        fields_describe_type(f, what, sizeof what);
        snprintf(err, err_len, "%s:%d:%d: %s must be %s, found %s", file, v->line, v->col, f->path,
                 what, ynode_kind_name(v));
        return false;
    }
    if (ynode_is_null(v)) {
        if ((f->flags & FIELD_NULLABLE) && f->type == FIELD_NUM) {
            *(double *)at(obj, f) = FIELD_ABSENT;
            return true;
        }
        if ((f->flags & FIELD_OPTIONAL) && (f->type == FIELD_REF || f->type == FIELD_STR)) {
            ((char *)at(obj, f))[0] = '\0';
            return true;
        }
        fields_describe_type(f, what, sizeof what);
        snprintf(err, err_len, "%s:%d:%d: %s needs a value (%s)", file, v->line, v->col, f->path,
                 what);
        return false;
    }
    if (v->quoted && f->type != FIELD_STR && f->type != FIELD_REF && f->type != FIELD_ENUM) {
        fields_describe_type(f, what, sizeof what);
        snprintf(err, err_len, "%s:%d:%d: %s must be %s, found the quoted text \"%.60s\"", file,
                 v->line, v->col, f->path, what, v->value);
        return false;
    }
    if (!fields_set_text(f, obj, v->value, msg, sizeof msg)) {
        snprintf(err, err_len, "%s:%d:%d: %s", file, v->line, v->col, msg);
        return false;
    }
    return true;
}

/* A misspelt section name ("trainig"): the closest section under prefix. */
static bool suggest_section(const struct field_table *t, const char *prefix, const char *word,
                            char *out, size_t out_len)
{
    size_t plen = strlen(prefix), best_d = SIZE_MAX;
    size_t limit = strlen(word) < 6 ? 1 : strlen(word) / 4 + 1;
    for (size_t i = 0; i < t->count; i++) {
        const char *p = t->fields[i].path;
        if (plen && (strncmp(p, prefix, plen) != 0 || p[plen] != '.'))
            continue;
        const char *rest = p + (plen ? plen + 1 : 0);
        const char *dot = strchr(rest, '.');
        if (!dot)
            continue; /* a field, not a section */
        char name[64];
        size_t n = (size_t)(dot - rest) < sizeof name - 1 ? (size_t)(dot - rest) : sizeof name - 1;
        memcpy(name, rest, n);
        name[n] = '\0';
        size_t d = edit_distance(word, name);
        if (d <= limit && d < best_d) {
            best_d = d;
            snprintf(out, out_len, "%s%s%s", prefix, plen ? "." : "", name);
        }
    }
    return best_d != SIZE_MAX;
}

bool fields_bind_yaml(const struct field_table *t, const struct ynode *map, const char *prefix,
                      const char *file, void *obj, bool *seen, char *err, size_t err_len)
{
    if (!map || map->kind != YNODE_MAP) {
        bool colon = map && map->kind == YNODE_SCALAR && strchr(map->value, ':');
        snprintf(err, err_len, "%s:%d:%d: %s must be a mapping of keys, found %s%s", file,
                 map ? map->line : 1, map ? map->col : 1, prefix[0] ? prefix : "the file",
                 ynode_kind_name(map), colon ? " (write a space after each ':')" : "");
        return false;
    }
    char path[256];
    for (size_t i = 0; i < map->count; i++) {
        const struct ynode *k = map->keys[i], *v = map->items[i];
        if (strchr(k->value, '.')) {
            /* Accepting "cluster.nodes:" next to "cluster: {nodes: ...}" would
             * give one field two values; nesting is the one spelling. */
            snprintf(err, err_len,
                     "%s:%d:%d: '%.80s': write nested keys (each part on its own line, "
                     "indented), not a dotted key",
                     file, k->line, k->col, k->value);
            return false;
        }
        int path_len =
            snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", k->value);
        if (path_len < 0 || (size_t)path_len >= sizeof path) {
            snprintf(err, err_len, "%s:%d:%d: unknown key '%.80s...'", file, k->line, k->col,
                     k->value);
            return false;
        }
        const struct field *f = fields_find(t, path);
        if (f) {
            if (!bind_scalar(f, v, file, obj, err, err_len))
                return false;
            if (seen)
                seen[field_index(t, f)] = true;
            continue;
        }
        /* A section: some field path starts with "path.". */
        size_t plen = strlen(path);
        bool section = false;
        for (size_t j = 0; j < t->count && !section; j++)
            section = strncmp(t->fields[j].path, path, plen) == 0 && t->fields[j].path[plen] == '.';
        if (section) {
            if (v->kind != YNODE_MAP) {
                bool colon = v->kind == YNODE_SCALAR && strchr(v->value, ':');
                snprintf(err, err_len, "%s:%d:%d: %s must be a mapping of keys, found %s%s", file,
                         v->line, v->col, path, ynode_kind_name(v),
                         colon ? " (write a space after each ':')" : "");
                return false;
            }
            if (!fields_bind_yaml(t, v, path, file, obj, seen, err, err_len))
                return false;
            continue;
        }
        const char *near = fields_suggest(t, path);
        char near_section[128];
        if (!near && suggest_section(t, prefix, k->value, near_section, sizeof near_section))
            near = near_section;
        snprintf(err, err_len, "%s:%d:%d: unknown key '%s'%s%s%s", file, k->line, k->col, path,
                 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        return false;
    }
    if (prefix[0] == '\0') {
        for (size_t j = 0; j < t->count; j++) {
            const struct field *f = &t->fields[j];
            if (!(f->flags & FIELD_REQUIRED))
                continue;
            /* Walk the path to see if it is present. */
            const struct ynode *n = map;
            char buf[256], *save;
            snprintf(buf, sizeof buf, "%s", f->path);
            for (char *tok = strtok_r(buf, ".", &save); tok && n; tok = strtok_r(NULL, ".", &save))
                n = ynode_get(n, tok);
            if (!n) {
                snprintf(err, err_len, "%s:%d:%d: missing required key '%s'", file, map->line,
                         map->col, f->path);
                return false;
            }
        }
    }
    return true;
}

bool fields_parse_duration(const char *text, double *seconds)
{
    return units_parse(UNIT_DURATION, text, seconds);
}

bool fields_parse_bytes(const char *text, double *bytes)
{
    return units_parse(UNIT_BYTES, text, bytes);
}
