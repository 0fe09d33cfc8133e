/* yamldoc: a small YAML document tree built from libyaml events.
 *
 * Every node keeps the line and column where it starts so that loaders can
 * report "file:line:col: message". Only what mlviz needs is supported:
 * mappings, sequences and scalars. Anchors, aliases and tags (`!!str`) are
 * rejected with a clear message rather than silently expanded or ignored, as
 * are NUL characters in text, repeated keys and inputs over 64 MiB. Keys of
 * a mapping are hashed as the tree is built, so building and ynode_get are
 * linear in the size of the input. */
#ifndef MLVIZ_YAMLDOC_H
#define MLVIZ_YAMLDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "idindex.h"

enum ynode_kind { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
    enum ynode_kind kind;
    int line;             /* 1-based */
    int col;              /* 1-based */
    char *value;          /* scalars: the text */
    bool quoted;          /* scalars: written in quotes (so "null" is a string) */
    size_t count;         /* maps: pairs; sequences: items */
    struct ynode **keys;  /* maps only: key scalars */
    struct ynode **items; /* maps: values; sequences: items */
    size_t cap;           /* allocated length of keys and items */
    struct idindex index; /* maps: key -> position */
};

struct ydoc {
    char *file;         /* the name used in messages */
    struct ynode *root; /* NULL for an empty document */
};

/* Parse a file (a regular file only: see infile.h). Returns NULL on failure
 * with "file:line:col: message" (or "file: message") in err. */
struct ydoc *ydoc_load_file(const char *path, char *err, size_t err_len);
/* Parse text held in memory; `name` is used in messages. */
struct ydoc *ydoc_load_string(const char *name, const char *text, size_t len, char *err,
                              size_t err_len);
void ydoc_free(struct ydoc *doc);

/* Look up a key in a mapping (hashed: constant time); NULL when absent or
 * when `map` is not a map. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* True for an unquoted scalar spelled null, ~ or empty. */
bool ynode_is_null(const struct ynode *node);
/* Human name of a node's kind for messages ("a mapping", "a list", "a value"). */
const char *ynode_kind_name(const struct ynode *node);

/* Bytes of a C1 control character (U+0080..U+009F, NEL among them) or a
 * Unicode line or paragraph separator (U+2028, U+2029) in UTF-8 at s, or 0.
 * YAML reads NEL, LS and PS as line breaks and terminals obey C1 controls,
 * so text fields refuse them like ASCII control characters. */
size_t yamldoc_unicode_control_len(const unsigned char *s, size_t n);

#endif
