/* assert_close(a, b, rel): a and b agree within `rel` of the larger of the
 * two (cmocka's fail_msg names the expression and both values). */
#ifndef MLVIZ_TEST_ASSERT_CLOSE_H
#define MLVIZ_TEST_ASSERT_CLOSE_H

#include <math.h>

#define assert_close(a, b, rel)                                                                    \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (rel)*fmax(fabs(a_), fabs(b_)) + 1e-300))                           \
            fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);                                    \
    } while (0)

#endif
