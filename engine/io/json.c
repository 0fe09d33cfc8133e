/* json: the one streaming JSON writer. */
#include "json.h"

#include <math.h>
#include <string.h>

#include "io_internal.h"
#include "units.h"

/* Length of the valid UTF-8 sequence at p (1..4) with its code point, or 0
 * when the bytes there are not valid UTF-8 (overlong forms, surrogates and
 * code points past U+10FFFF are invalid). */
int io_utf8_next(const unsigned char *p, unsigned long *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    int n;
    unsigned long c, min;
    if ((p[0] & 0xE0) == 0xC0)
        n = 2, c = p[0] & 0x1F, min = 0x80;
    else if ((p[0] & 0xF0) == 0xE0)
        n = 3, c = p[0] & 0x0F, min = 0x800;
    else if ((p[0] & 0xF8) == 0xF0)
        n = 4, c = p[0] & 0x07, min = 0x10000;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0; /* also stops at the terminating NUL */
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/* C0 controls, DEL and the C1 controls (which terminals also obey). */
bool io_is_control(unsigned long cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
}

void json_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned long cp;
        int n = io_utf8_next(p, &cp);
        if (n == 0) {
            fputs("\xEF\xBF\xBD", out); /* U+FFFD for a byte that is not UTF-8 */
            p++;
            continue;
        }
        if (cp == '"')
            fputs("\\\"", out);
        else if (cp == '\\')
            fputs("\\\\", out);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp == '\t')
            fputs("\\t", out);
        else if (cp == '\r')
            fputs("\\r", out);
        else if (io_is_control(cp))
            fprintf(out, "\\u%04lx", cp);
        else
            fwrite(p, 1, (size_t)n, out);
        p += n;
    }
    fputc('"', out);
}

static void json_sep(struct json_writer *w, const char *key)
{
    if (w->need_comma[w->depth])
        fputc(',', w->out);
    w->need_comma[w->depth] = true;
    if (w->pretty)
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    if (key) {
        json_write_string(w->out, key);
        fputs(w->pretty ? ": " : ":", w->out);
    }
}

void json_open(struct json_writer *w, const char *key, bool list)
{
    json_sep(w, key);
    fputc(list ? '[' : '{', w->out);
    if (w->depth < 63)
        w->depth++;
    w->need_comma[w->depth] = false;
}

void json_close(struct json_writer *w, bool list)
{
    bool had = w->need_comma[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (w->pretty && had)
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    fputc(list ? ']' : '}', w->out);
}

void json_key_num(struct json_writer *w, const char *key, double v)
{
    json_sep(w, key);
    if (isnan(v)) {
        fputs("null", w->out);
        return;
    }
    char buf[48];
    output_format_number(buf, sizeof buf, v, 10);
    fputs(buf, w->out);
}

void json_key_uint(struct json_writer *w, const char *key, unsigned long long v)
{
    json_sep(w, key);
    fprintf(w->out, "%llu", v);
}

void json_key_int(struct json_writer *w, const char *key, long long v)
{
    json_sep(w, key);
    fprintf(w->out, "%lld", v);
}

void json_key_str(struct json_writer *w, const char *key, const char *s)
{
    json_sep(w, key);
    json_write_string(w->out, s ? s : "");
}

void json_key_bool(struct json_writer *w, const char *key, bool b)
{
    json_sep(w, key);
    fputs(b ? "true" : "false", w->out);
}

void json_begin(struct json_writer *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
    fputc('{', out);
    w->depth = 1;
}

void json_finish(struct json_writer *w)
{
    while (w->depth > 0)
        json_close(w, false);
    fputc('\n', w->out);
}

void json_rows_begin(struct json_writer *w, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    fputc('[', out);
}

void json_row_open(struct json_writer *w)
{
    fputs(w->need_comma[0] ? ",\n  {" : "\n  {", w->out);
    w->need_comma[0] = true;
    w->depth = 1;
    w->need_comma[1] = false;
}

void json_row_close(struct json_writer *w)
{
    json_close(w, false);
}

void json_rows_finish(struct json_writer *w)
{
    fputs("\n]\n", w->out);
}
