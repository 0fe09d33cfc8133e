/* csv: the one CSV writer (RFC 4180).
 *
 * A field is quoted when it holds a comma, a double quote, CR or LF, or
 * starts or ends with a space; inner double quotes are doubled. Every CSV
 * that mlviz writes goes through these functions. */
#ifndef MLVIZ_CSV_H
#define MLVIZ_CSV_H

#include <stdbool.h>
#include <stdio.h>

/* One field, quoted when needed (NULL writes an empty field). */
void csv_write_field(FILE *out, const char *text);

/* A row of fields under construction: the writer puts the commas. */
struct csv_row {
    FILE *out;
    bool started;
};
void csv_row_begin(struct csv_row *row, FILE *out);
void csv_row_field(struct csv_row *row, const char *text);
/* A number as a field: integer-valued numbers exactly, others with
 * `digits` significant digits; non-finite values as 0, never "-0". */
void csv_row_number(struct csv_row *row, double v, int digits);
void csv_row_end(struct csv_row *row); /* the line end */
/* A whole row of n text fields (a header line). */
void csv_write_row(FILE *out, const char *const *fields, size_t n);

#endif
