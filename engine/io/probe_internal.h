/* probe_internal: shared by probe.c (reading the machine) and
 * probe_build.c (the setup built from it); not a public face. */
#ifndef MLVIZ_PROBE_INTERNAL_H
#define MLVIZ_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* Copies text that came from the machine: printable ASCII only, trimmed. */
void probe_copy_clean(char *dst, size_t len, const char *src, size_t n);
/* True when s begins with prefix. */
bool probe_starts_with(const char *s, const char *prefix);

#endif
