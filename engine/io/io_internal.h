/* io_internal: what the writers of engine/io share (not a public face). */
#ifndef MLVIZ_IO_INTERNAL_H
#define MLVIZ_IO_INTERNAL_H

#include <stdbool.h>

/* Length of the valid UTF-8 sequence at p (1..4) with its code point in
 * *cp, or 0 when the bytes there are not valid UTF-8. */
int io_utf8_next(const unsigned char *p, unsigned long *cp);
/* C0 controls, DEL and the C1 controls (which terminals also obey). */
bool io_is_control(unsigned long cp);

#endif
