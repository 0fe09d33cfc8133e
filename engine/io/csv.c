/* csv: RFC 4180 fields and rows. */
#include "csv.h"

#include <string.h>

#include "report.h"

void csv_write_field(FILE *out, const char *text)
{
    if (!text)
        text = "";
    size_t n = strlen(text);
    bool quote =
        strpbrk(text, ",\"\r\n") != NULL || (n > 0 && (text[0] == ' ' || text[n - 1] == ' '));
    if (!quote) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void csv_row_begin(struct csv_row *row, FILE *out)
{
    row->out = out;
    row->started = false;
}

void csv_row_field(struct csv_row *row, const char *text)
{
    if (row->started)
        fputc(',', row->out);
    row->started = true;
    csv_write_field(row->out, text);
}

void csv_row_number(struct csv_row *row, double v, int digits)
{
    char buf[48];
    output_format_number(buf, sizeof buf, v, digits);
    csv_row_field(row, buf);
}

void csv_row_end(struct csv_row *row)
{
    fputc('\n', row->out);
    row->started = false;
}

void csv_write_row(FILE *out, const char *const *fields, size_t n)
{
    struct csv_row row;
    csv_row_begin(&row, out);
    for (size_t i = 0; i < n; i++)
        csv_row_field(&row, fields[i]);
    csv_row_end(&row);
}
