/* roff: text for man pages (the one escaping rule, shared by the key and
 * option tables that generate parts of mlviz.1). */
#ifndef MLVIZ_ROFF_H
#define MLVIZ_ROFF_H

#include <stdio.h>

/* Writes s so groff prints it as is: backslashes and hyphens escaped, and a
 * leading '.' or '\'' guarded so it cannot start a request. */
void roff_escape(FILE *out, const char *s);

#endif
