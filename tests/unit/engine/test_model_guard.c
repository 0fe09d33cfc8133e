/* Unit tests of the model's finite-number guard (report_sanitize) on its fast
 * path: a report with no NaN or infinity still leaves no negative zero in
 * any numeric member, and a NaN anywhere is still found and named. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "report_fields.h"

/* Every numeric member alone set to -0: the guard reports nothing (all are
 * finite) and leaves +0. */
static void test_negative_zero_everywhere(void **state)
{
    (void)state;
    struct model_report o;
    int checked = 0;
    for (size_t i = 0; i < report_field_count; i++) {
        if (report_fields[i].type != REPORT_NUM)
            continue;
        memset(&o, 0, sizeof o);
        double neg = -0.0;
        memcpy((char *)&o + report_fields[i].offset, &neg, sizeof neg);
        assert_null(report_sanitize(&o));
        double v;
        memcpy(&v, (char *)&o + report_fields[i].offset, sizeof v);
        assert_true(v == 0.0 && !signbit(v));
        checked++;
    }
    assert_true(checked > 50);
}

/* All numeric members negative zero at once, then one NaN among finite
 * non-zero values: named, zeroed, and the others kept as they were. */
static void test_nan_among_values(void **state)
{
    (void)state;
    struct model_report o;
    memset(&o, 0, sizeof o);
    for (size_t i = 0; i < report_field_count; i++)
        if (report_fields[i].type == REPORT_NUM) {
            double neg = -0.0;
            memcpy((char *)&o + report_fields[i].offset, &neg, sizeof neg);
        }
    assert_null(report_sanitize(&o));
    for (size_t i = 0; i < report_field_count; i++)
        if (report_fields[i].type == REPORT_NUM)
            assert_false(signbit(report_field_number(&report_fields[i], &o)));
    o.step_time_s = 2.5;
    o.memory.per_device_gb = 70.0;
    o.cost.usd_total = NAN;
    const char *bad = report_sanitize(&o);
    assert_non_null(bad);
    assert_string_equal(bad, "cost.usd_total");
    assert_true(o.cost.usd_total == 0.0);
    assert_true(o.step_time_s == 2.5 && o.memory.per_device_gb == 70.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_negative_zero_everywhere),
        cmocka_unit_test(test_nan_among_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
