/* yamldoc: a small YAML document tree built from libyaml events.
 *
 * Every node keeps the line and column where it starts so that loaders can
 * report "file:line:col: message". Only what mlviz needs is supported:
 * mappings, sequences and scalars (anchors and aliases are rejected with a
 * clear message rather than silently expanded). */
#ifndef MLVIZ_YAMLDOC_H
#define MLVIZ_YAMLDOC_H

#include <stdbool.h>
#include <stddef.h>

enum ynode_kind { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
    enum ynode_kind kind;
    int line; /* 1-based */
    int col;  /* 1-based */
    char *value;   /* scalars: the text */
    bool quoted;   /* scalars: written in quotes (so "null" is a string) */
    size_t count;  /* maps: pairs; sequences: items */
    struct ynode **keys;  /* maps only: key scalars */
    struct ynode **items; /* maps: values; sequences: items */
};

struct ydoc {
    char *file;         /* the name used in messages */
    struct ynode *root; /* NULL for an empty document */
};

/* Parse a file. Returns NULL on failure with "file:line:col: message" in err. */
struct ydoc *ydoc_load_file(const char *path, char *err, size_t err_len);
/* Parse text held in memory; `name` is used in messages. */
struct ydoc *ydoc_load_string(const char *name, const char *text, size_t len, char *err,
                              size_t err_len);
void ydoc_free(struct ydoc *doc);

/* Look up a key in a mapping; NULL when absent or when `map` is not a map. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* True for an unquoted scalar spelled null, ~ or empty. */
bool ynode_is_null(const struct ynode *node);
/* Human name of a node's kind for messages ("a mapping", "a list", "a value"). */
const char *ynode_kind_name(const struct ynode *node);

#endif
