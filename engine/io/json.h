/* json: the one streaming JSON writer.
 *
 * Every JSON that mlviz writes (eval, check, catalog, fields, collective,
 * sim, plan, the Lua write_json) goes through these functions. Numbers go
 * through output_format_number (no nan, inf or -0); strings are valid
 * UTF-8 with control characters escaped. */
#ifndef MLVIZ_JSON_H
#define MLVIZ_JSON_H

#include <stdbool.h>
#include <stdio.h>

struct json_writer {
    FILE *out;
    int depth;
    bool need_comma[64];
    bool pretty;
};
void json_begin(struct json_writer *w, FILE *out, bool pretty); /* opens the top object */
void json_finish(struct json_writer *w);                        /* closes it, newline */
/* A number (integer-valued ones exactly); NaN is written as null, which
 * callers use for "absent". */
void json_key_num(struct json_writer *w, const char *key, double v);
void json_key_uint(struct json_writer *w, const char *key, unsigned long long v);
void json_key_int(struct json_writer *w, const char *key, long long v); /* every digit */
void json_key_str(struct json_writer *w, const char *key, const char *s);
void json_key_bool(struct json_writer *w, const char *key, bool b);
/* An object or list, under `key` (NULL inside a list). */
void json_open(struct json_writer *w, const char *key, bool list);
void json_close(struct json_writer *w, bool list);
/* A top-level list of compact objects, one a line:
 *   [
 *     {"algorithm":"ring","size_bytes":8},
 *     ...
 *   ]
 * (`mlviz collective`, `mlviz scenarios`). json_row_open starts the next
 * row's object; json_key_* fill it; json_row_close ends it. */
void json_rows_begin(struct json_writer *w, FILE *out);
void json_row_open(struct json_writer *w);
void json_row_close(struct json_writer *w);
void json_rows_finish(struct json_writer *w);
/* A JSON string: valid UTF-8 (invalid bytes become U+FFFD), control
 * characters escaped. */
void json_write_string(FILE *out, const char *s);

#endif
