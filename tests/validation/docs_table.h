/* docs_table: the tables the validation programs generate into
 * docs/MODEL.md. A program prints its table when run with --table; the
 * block `<!-- begin generated table: NAME -->` ... `<!-- end generated -->`
 * of docs/MODEL.md holds it, and tests/cli/docs.sh (tests/docsync.py)
 * checks it, or rewrites it with --write, like every generated block.
 * Included by the validation programs only (cmocka first, and the catalog
 * fixture: the tables evaluate setups on the shipped catalog). */
#ifndef MLVIZ_TESTS_DOCS_TABLE_H
#define MLVIZ_TESTS_DOCS_TABLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends printf-style text to a table of `len` bytes, `*used` of them
 * taken; text that does not fit is cut. */
static __attribute__((unused, format(printf, 4, 5))) void
docs_table_append(char *out, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *used, *used < len ? len - *used : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

/* In main(), first: with --table, prints the table that `build` writes
 * and returns 1 (main then exits with *status); else returns 0 and the
 * tests run. */
static __attribute__((unused)) int
docs_table_wanted(int argc, char **argv, void (*build)(char *out, size_t len), int *status)
{
    static char table[65536];
    if (argc < 2 || strcmp(argv[1], "--table") != 0)
        return 0;
    *status = 1;
    if (load_catalog(NULL) != 0)
        return 1;
    build(table, sizeof table);
    fputs(table, stdout);
    free_catalog(NULL);
    *status = 0;
    return 1;
}

#endif
