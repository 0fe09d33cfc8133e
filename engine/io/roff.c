/* roff: see roff.h. Escapes follow groff(7): "\-" is a minus/hyphen glyph,
 * "\\" a backslash, and "\&" a zero-width character that keeps a control
 * character at the start of a line from being read as a request. */
#include "roff.h"

void roff_escape(FILE *out, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\' || *s == '-')
            fputc('\\', out);
        fputc(*s, out);
    }
}
