/* fields: one description per field, driving YAML loading, get/set by path,
 * validation, help text and TUI knobs.
 *
 * A table of `struct field` describes a C struct: for each field its dotted
 * path (the YAML key path), its type, where it lives in the struct, its unit,
 * default, valid range and help text. The YAML binder, the Lua get/set paths,
 * the TUI knobs and `mlviz fields` all read the same table. */
#ifndef MLVIZ_FIELDS_H
#define MLVIZ_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "yamldoc.h"

enum field_type {
    FIELD_INT,      /* stored as int */
    FIELD_NUM,      /* stored as double */
    FIELD_NUM_AUTO, /* double; the word "auto" is stored as FIELD_AUTO */
    FIELD_BOOL,     /* stored as bool */
    FIELD_STR,      /* stored in a char[max] (FIELD_STR_LEN when max is 0); no control
                       characters */
    FIELD_ENUM,     /* stored as int index into `choices` */
    FIELD_REF,      /* a catalog id stored in a char[FIELD_STR_LEN] */
};

enum { FIELD_STR_LEN = 64 };
#define FIELD_AUTO (-1.0)
/* Catalog numbers that may be absent (a device without fp8, say) hold this. */
#define FIELD_ABSENT (-1.0)

enum field_flags {
    FIELD_REQUIRED = 1u << 0, /* must be present in YAML */
    FIELD_KNOB = 1u << 1,     /* shown as a knob in the TUI stage view */
    FIELD_NULLABLE = 1u << 2, /* `null` allowed: numbers become FIELD_ABSENT */
    FIELD_OPTIONAL = 1u << 3, /* refs: empty means "none" */
    FIELD_EXCL_MIN = 1u << 4, /* the minimum itself is not allowed (x > min) */
    FIELD_INT_AUTO = 1u << 5, /* FIELD_INT: the word "auto" is stored as 0 (below min),
                                 settled to a number before the setup is checked */
};

struct field {
    const char *path; /* "training.tensor_parallel" */
    enum field_type type;
    size_t offset;              /* offsetof in the described struct */
    double min, max;            /* valid range for numbers */
    double def;                 /* default number (or enum index, or bool 0/1) */
    const char *def_str;        /* default for strings and refs */
    const char *const *choices; /* enum names, NULL-terminated */
    int ref_kind;               /* catalog kind for FIELD_REF (enum catalog_kind) */
    const char *unit;           /* "GB/s", "W", "" */
    const char *help;           /* one sentence */
    unsigned flags;
    int stage; /* 1-5: the stage view that shows it as a knob */
    /* Knobs (FIELD_KNOB) only: */
    const char *label;     /* the knob's name in the stage view ("loader workers/device") */
    const char *auto_from; /* FIELD_NUM_AUTO: where the value the model used for "auto" is:
                            * a report key ("power.pue"), "accelerator.FIELD" or
                            * "infer.KEY" (a key of the serving report) */
    double step;           /* a step of the knob; 0: numbers double and halve */
};

struct field_table {
    const char *what; /* "setup", "accelerator"... used in messages */
    const struct field *fields;
    size_t count;
};

/* Find by exact path; NULL when unknown. */
const struct field *fields_find(const struct field_table *t, const char *path);
/* The closest known path to a misspelt one (Levenshtein), or NULL when none is near. */
const char *fields_suggest(const struct field_table *t, const char *path);
/* Suggest from an arbitrary list of words. */
const char *fields_suggest_word(const char *word, const char *const *words, size_t n);

/* Write every field's default into obj. */
void fields_apply_defaults(const struct field_table *t, void *obj);

/* Bind a YAML mapping onto obj. `prefix` is the path of `map` ("" for the root).
 * Unknown keys, wrong types and out-of-range values are errors written as
 * "file:line:col: message". Returns false on the first error. `seen`, when not
 * NULL, receives one flag per table entry set for fields present in YAML. */
bool fields_bind_yaml(const struct field_table *t, const struct ynode *map, const char *prefix,
                      const char *file, void *obj, bool *seen, char *err, size_t err_len);

/* Reading and writing values by field. */
double fields_get_number(const struct field *f, const void *obj);
const char *fields_get_string(const struct field *f, const void *obj); /* STR, REF, ENUM */
/* Parse text (as typed on a command line or in a knob) and store it.
 * Checks type and range; returns false with a message (no position). */
bool fields_set_text(const struct field *f, void *obj, const char *text, char *err, size_t err_len);
/* Store a number (INT, NUM, NUM_AUTO, BOOL, ENUM index) with range checks.
 * NaN, inf and subnormal numbers are refused, and so are the sentinels: -1
 * is a number like any other here (out of range for most fields). */
bool fields_set_number(const struct field *f, void *obj, double value, char *err, size_t err_len);
/* Set NUM_AUTO to "auto" (FIELD_AUTO) or a nullable NUM to absent
 * (FIELD_ABSENT); false with a message for other fields. */
bool fields_set_auto(const struct field *f, void *obj, char *err, size_t err_len);
/* Format the current value for display ("auto", "bf16", "2048", "0.25"). */
void fields_format(const struct field *f, const void *obj, char *buf, size_t len);
/* Valid range of a number field for help text: "1..1048576", "0.001..1000000"
 * (">0..1" when the minimum itself is excluded); "" for other types. */
void fields_describe_range(const struct field *f, char *buf, size_t len);
/* Name of a field type for help text ("integer", "number", "one of: a|b"). */
void fields_describe_type(const struct field *f, char *buf, size_t len);

/* Parse a plain decimal number strictly (no hex, inf, nan or trailing
 * junk; finite). Returns false on anything else. */
bool fields_parse_number(const char *text, double *value);
/* Parse a duration written 90s, 15m, 6h, 2d or plain seconds. Returns false on junk. */
bool fields_parse_duration(const char *text, double *seconds);
/* Parse a byte size written 8, 64KiB, 1GiB, 1GB, 512MB. */
bool fields_parse_bytes(const char *text, double *bytes);

#endif
