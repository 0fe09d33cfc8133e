/* units: the one table of durations, bytes, SI prefixes, clock and
 * percent, read by the parsers and the formatters. Expected strings are
 * written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "units.h"

static void check_duration(double seconds, const char *want)
{
    char buf[64];
    format_duration(buf, sizeof buf, seconds);
    assert_string_equal(buf, want);
}

static void test_format_duration_rows(void **state)
{
    (void)state;
    check_duration(0.00042, "420 us");
    check_duration(0.0123, "12.3 ms");
    check_duration(1.5, "1.50 s");
    check_duration(119.0, "119.00 s");
    check_duration(600.0, "10 min");
    check_duration(3 * 3600.0, "3.0 h");
    check_duration(5 * 86400.0, "5.0 d");
    check_duration(2000 * 365.25 * 86400.0, "2000 y"); /* no exponent on any screen */
    check_duration(1e300, ">999 k y");
    check_duration(-1.0, "-");
    check_duration(NAN, "-");
}

static void test_parse_duration_and_bytes(void **state)
{
    (void)state;
    double v = -1;
    assert_true(units_parse(UNIT_DURATION, "20m", &v));
    assert_true(v == 1200.0);
    assert_true(units_parse(UNIT_DURATION, "250ms", &v));
    assert_true(fabs(v - 0.25) < 1e-12);
    assert_true(units_parse(UNIT_DURATION, "1.5d", &v));
    assert_true(v == 129600.0);
    assert_true(fields_parse_duration("6h", &v) && v == 21600.0);
    assert_false(units_parse(UNIT_DURATION, "6 h", &v));
    assert_false(units_parse(UNIT_DURATION, "-1s", &v));
    assert_false(units_parse(UNIT_DURATION, "1min", &v)); /* written, never read */
    assert_false(units_parse(UNIT_DURATION, "1e305d", &v));
    assert_true(units_parse(UNIT_BYTES, "64MiB", &v) && v == 67108864.0);
    assert_true(fields_parse_bytes("2GB", &v) && v == 2e9);
    assert_false(units_parse(UNIT_BYTES, "2gb", &v));
}

static void test_format_si_and_percent(void **state)
{
    (void)state;
    char buf[64];
    format_si(buf, sizeof buf, 1234.0, "B");
    assert_string_equal(buf, "1.23 kB");
    format_si(buf, sizeof buf, 999.0, "");
    assert_string_equal(buf, "999");
    format_si(buf, sizeof buf, 2.5e9, "FLOP");
    assert_string_equal(buf, "2.50 GFLOP");
    format_si(buf, sizeof buf, -42e6, "");
    assert_string_equal(buf, "-42.0 M");
    format_si(buf, sizeof buf, 5e30, "B"); /* past the last prefix: a bound */
    assert_string_equal(buf, ">999 YB");
    format_si(buf, sizeof buf, -5e30, "");
    assert_string_equal(buf, "<-999 Y");
    format_percent(buf, sizeof buf, 0.1234);
    assert_string_equal(buf, "12.3%");
    format_percent(buf, sizeof buf, -0.00001);
    assert_string_equal(buf, "0.0%");
}

static void test_clock_and_value(void **state)
{
    (void)state;
    char buf[64];
    format_clock(buf, sizeof buf, 3723.9);
    assert_string_equal(buf, "01:02:03");
    format_clock(buf, sizeof buf, 2 * 86400.0 + 61);
    assert_string_equal(buf, "2d 00:01:01");
    format_clock(buf, sizeof buf, -5);
    assert_string_equal(buf, "00:00:00");
    format_duration_value(buf, sizeof buf, 1200);
    assert_string_equal(buf, "20m");
    format_duration_value(buf, sizeof buf, 7200);
    assert_string_equal(buf, "2h");
    format_duration_value(buf, sizeof buf, 129600);
    assert_string_equal(buf, "1.5d");
    format_duration_value(buf, sizeof buf, 0.5);
    assert_string_equal(buf, "0.5s");
}

/* The clock carries seconds into minutes and minutes into hours: no
 * field ever reaches 60 ("01:75:03" is impossible), days come first. */
static void test_clock_wraps(void **state)
{
    (void)state;
    static const struct {
        double seconds;
        const char *want;
    } rows[] = {
        {59.999, "00:00:59"},          {60.0, "00:01:00"},
        {3599.0, "00:59:59"},          {3600.0, "01:00:00"},
        {4503.0, "01:15:03"},          {8103.0, "02:15:03"},
        {86399.0, "23:59:59"},         {86400.0, "1d 00:00:00"},
        {90061.0, "1d 01:01:01"},      {NAN, "00:00:00"},
        {INFINITY, "00:00:00"},        {-0.0, "00:00:00"},
        {1e300, "11574074d 01:46:40"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        format_clock(buf, sizeof buf, rows[i].seconds);
        assert_string_equal(buf, rows[i].want);
    }
    /* Every second of a day and a half: minutes and seconds below 60. */
    for (int t = 0; t < 36 * 3600; t += 7) {
        format_clock(buf, sizeof buf, t);
        const char *hms = strchr(buf, ' ') ? strchr(buf, ' ') + 1 : buf;
        int h = -1, m = -1, s = -1;
        assert_int_equal(sscanf(hms, "%d:%d:%d", &h, &m, &s), 3);
        assert_true(h >= 0 && h < 24 && m >= 0 && m < 60 && s >= 0 && s < 60);
        assert_int_equal(h * 3600 + m * 60 + s, t % 86400);
    }
}

static void check_significant(double v, int digits, const char *want)
{
    char buf[64];
    format_significant(buf, sizeof buf, v, digits);
    assert_string_equal(buf, want);
}

static void test_significant(void **state)
{
    (void)state;
    check_significant(0.0234, 2, "0.023");
    check_significant(0.00234, 2, "0.0023");
    check_significant(2.34, 2, "2.3");
    check_significant(23.4, 2, "23");
    check_significant(2345.0, 2, "2345"); /* the whole part is never rounded */
    check_significant(9.96, 2, "10");     /* rounding up carries into the next digit */
    check_significant(0.0996, 2, "0.10");
    check_significant(85.52, 3, "85.5");
    check_significant(5.234, 3, "5.23");
    check_significant(640.0, 3, "640");
    check_significant(0.5, 3, "0.500");
    check_significant(-2.34, 2, "-2.3");
    check_significant(-0.0001, 1, "-0.0001");
    check_significant(-1e-12, 2, "0");
    check_significant(0.0, 2, "0");
    check_significant(1e-300, 2, "0");
    check_significant(2.5e12, 3, "2.50 T"); /* an SI prefix, never an exponent */
    check_significant(NAN, 2, "-");
    check_significant(-INFINITY, 2, "-");
    check_significant(3.0, 0, "3"); /* fewer than one digit: one */
}

static void check_short(double v, int digits, const char *want)
{
    char buf[64];
    format_short(buf, sizeof buf, v, digits);
    assert_string_equal(buf, want);
}

/* A value as someone would write it: no trailing zero, no exponent. */
static void test_short(void **state)
{
    (void)state;
    check_short(0.5, 6, "0.5");
    check_short(0.3, 2, "0.3");
    check_short(3.0, 6, "3");
    check_short(100.0, 6, "100"); /* zeros before the point stay */
    check_short(2097152.0, 6, "2097152");
    check_short(3.0517578125e-05, 6, "0.000030518"); /* nine decimals at most */
    check_short(1e-7, 6, "0.0000001");
    check_short(-0.25, 6, "-0.25");
    check_short(2.5e12, 6, "2.5 T"); /* the prefix stays, its zero goes */
    check_short(3e12, 6, "3 T");
    check_short(NAN, 6, "-");
    check_short(1e-300, 6, "0");
}

/* One of a thing is singular, every other count plural; units stay. */
static void test_noun(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(format_noun(1, "samples", buf, sizeof buf), "sample");
    assert_string_equal(format_noun(2, "samples", buf, sizeof buf), "samples");
    assert_string_equal(format_noun(0, "samples", buf, sizeof buf), "samples");
    assert_string_equal(format_noun(1.5, "samples", buf, sizeof buf), "samples");
    assert_string_equal(format_noun(1, "micro-batches", buf, sizeof buf), "micro-batch");
    assert_string_equal(format_noun(1, "racks", buf, sizeof buf), "rack");
    assert_string_equal(format_noun(1, "bytes", buf, sizeof buf), "byte");
    assert_string_equal(format_noun(1, "boxes", buf, sizeof buf), "box");
    assert_string_equal(format_noun(1, "devices", buf, sizeof buf), "device");
    assert_string_equal(format_noun(1, "GB/s", buf, sizeof buf), "GB/s");
    assert_string_equal(format_noun(1, "ms", buf, sizeof buf), "ms");
    assert_string_equal(format_noun(1, "GPUs", buf, sizeof buf), "GPU");
    assert_string_equal(format_noun(1, "tokens/s", buf, sizeof buf), "tokens/s");
    assert_string_equal(format_noun(1, "class", buf, sizeof buf), "class");
    assert_string_equal(format_noun(1, "samples", buf, 4), "sam"); /* truncated, terminated */
}

static void check_plain(const char *in, const char *want)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", in);
    units_plain_numbers(buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* Numbers in e-notation in a script's or a message's text become digits;
 * words, names and other numbers stay as written. */
static void test_plain_numbers(void **state)
{
    (void)state;
    check_plain("plot 0..2.097e+06 tokens/s", "plot 0..2097000 tokens/s");
    check_plain("sample bytes 1.3e+08", "sample bytes 130000000");
    check_plain("cores 2e-05/128 busy", "cores 0.00002/128 busy");
    check_plain("(got 1E-9)", "(got 0.000000001)");
    check_plain("3e12 FLOP", "3 T FLOP");
    check_plain("no exponent 12.5 here", "no exponent 12.5 here");
    check_plain("name h100e-5 v1e5x 3e x.y3e5",
                "name h100e-5 v1e5x 3e x.y3e5"); /* in words: kept */
    check_plain("-1.5e+03 W", "-1500 W");
    check_plain("", "");
    char small[8] = "1e-08";
    units_plain_numbers(small, sizeof small);
    assert_string_equal(small, "0.00000"); /* cut to its room, terminated */
}

/* A number nobody can know reads "-" in every formatter for people, with
 * its unit; machines get 0 (output_format_number). */
static void test_unknown(void **state)
{
    (void)state;
    char buf[64];
    format_si(buf, sizeof buf, NAN, "tok/s");
    assert_string_equal(buf, "- tok/s");
    format_si(buf, sizeof buf, INFINITY, "");
    assert_string_equal(buf, "-");
    format_percent(buf, sizeof buf, NAN);
    assert_string_equal(buf, "-%");
    format_usd(buf, sizeof buf, -INFINITY);
    assert_string_equal(buf, "$-");
    format_fixed(buf, sizeof buf, NAN, 2);
    assert_string_equal(buf, "-");
    format_duration(buf, sizeof buf, INFINITY);
    assert_string_equal(buf, "-");
    output_format_number(buf, sizeof buf, NAN, 6);
    assert_string_equal(buf, "0");
    /* and the same digits for people on screen and in reports */
    format_percent(buf, sizeof buf, 0.575);
    assert_string_equal(buf, "57.5%");
    format_percent(buf, sizeof buf, 0.0042);
    assert_string_equal(buf, "0.4%");
}

static void test_table_scales(void **state)
{
    (void)state;
    assert_true(units_scale(UNIT_DURATION, "min") == 60.0);
    assert_true(units_scale(UNIT_DURATION, "m") == 60.0);
    assert_true(units_scale(UNIT_BYTES, "GiB") == 1073741824.0);
    assert_true(units_scale(UNIT_SI, "T") == 1e12);
    assert_true(units_scale(UNIT_SI, "nope") == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_duration_rows),
        cmocka_unit_test(test_parse_duration_and_bytes),
        cmocka_unit_test(test_format_si_and_percent),
        cmocka_unit_test(test_clock_and_value),
        cmocka_unit_test(test_clock_wraps),
        cmocka_unit_test(test_significant),
        cmocka_unit_test(test_short),
        cmocka_unit_test(test_noun),
        cmocka_unit_test(test_plain_numbers),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_table_scales),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
