/* fields: the table-driven binder behind setup files, the catalog, get/set by
 * path and the TUI knobs. A small table of our own exercises every field type
 * and flag; the setup table is used where real paths matter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fields.h"
#include "infer.h"
#include "report_fields.h"
#include "setup.h"
#include "yamldoc.h"

struct obj {
    int n;
    double x;
    double a;
    bool b;
    char s[FIELD_STR_LEN];
    int e;
    char r[FIELD_STR_LEN];
    double peak;
    char opt[FIELD_STR_LEN];
    int sec_v;
    double sec_deep_w;
};

static const char *const colors[] = {"red", "green", "blue", NULL};

#define O(m) offsetof(struct obj, m)
static const struct field obj_fields[] = {
    {"n", FIELD_INT, O(n), 1, 100, 4, NULL, NULL, 0, "", "a count", FIELD_REQUIRED, 0, NULL, NULL,
     0},
    {"x", FIELD_NUM, O(x), 0, 10, 2.5, NULL, NULL, 0, "GB", "a size", FIELD_EXCL_MIN, 0, NULL, NULL,
     0},
    {"a", FIELD_NUM_AUTO, O(a), 0, 1000, FIELD_AUTO, NULL, NULL, 0, "", "auto or a number", 0, 0,
     NULL, NULL, 0},
    {"b", FIELD_BOOL, O(b), 0, 1, 1, NULL, NULL, 0, "", "a switch", 0, 0, NULL, NULL, 0},
    {"s", FIELD_STR, O(s), 0, 0, 0, "hello", NULL, 0, "", "a text", 0, 0, NULL, NULL, 0},
    {"e", FIELD_ENUM, O(e), 0, 0, 1, NULL, colors, 0, "", "a colour", 0, 0, NULL, NULL, 0},
    {"r", FIELD_REF, O(r), 0, 0, 0, "ref-1", NULL, 0, "", "a catalog id", 0, 0, NULL, NULL, 0},
    {"peak", FIELD_NUM, O(peak), 0, 1e6, FIELD_ABSENT, NULL, NULL, 0, "TFLOP/s", "maybe absent",
     FIELD_NULLABLE | FIELD_EXCL_MIN, 0, NULL, NULL, 0},
    {"opt", FIELD_REF, O(opt), 0, 0, 0, "", NULL, 0, "", "optional id", FIELD_OPTIONAL, 0, NULL,
     NULL, 0},
    {"sec.v", FIELD_INT, O(sec_v), 0, 10, 0, NULL, NULL, 0, "", "in a section", 0, 0, NULL, NULL,
     0},
    {"sec.deep.w", FIELD_NUM, O(sec_deep_w), 0, 10, 1, NULL, NULL, 0, "", "deeper", 0, 0, NULL,
     NULL, 0},
};
static const struct field_table obj_table = {"thing", obj_fields,
                                             sizeof obj_fields / sizeof obj_fields[0]};

static const struct field *F(const char *path)
{
    const struct field *f = fields_find(&obj_table, path);
    if (!f)
        fail_msg("no field %s", path);
    return f;
}

/* ------------------------------------------------------------ durations, bytes */

static void test_parse_duration(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double seconds;
    } ok[] = {{"90s", 90},    {"15m", 900},    {"6h", 21600}, {"2d", 172800},  {"120", 120},
              {"1.5h", 5400}, {"250ms", 0.25}, {"0", 0},      {"0.5d", 43200}, {"1e3s", 1000}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -1;
        if (!fields_parse_duration(ok[i].text, &v))
            fail_msg("'%s' should parse", ok[i].text);
        assert_float_equal(v, ok[i].seconds, 1e-9);
    }
    /* 1e305d is a finite number of days but an infinite number of seconds;
     * 1e-320s cannot be computed with */
    static const char *const bad[] = {"",        "abc",    "5x",      "-5m",  "5 m",  "h",
                                      "10hours", "1h30m",  "nan",     "inf",  "5mm",  "s",
                                      "1e305d",  "1e308h", "1e-320s", "0x10", ".inf", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 42;
        if (fields_parse_duration(bad[i], &v))
            fail_msg("'%s' should not parse (got %g)", bad[i], v);
        assert_float_equal(v, 42, 0); /* untouched on failure */
    }
    double v = 1;
    assert_false(fields_parse_duration(NULL, &v));
}

static void test_parse_number_strict(void **state)
{
    (void)state;
    double v = 0;
    assert_true(fields_parse_number("2.5e3", &v));
    assert_float_equal(v, 2500, 0);
    static const char *const bad[] = {"",      ".nan",   ".inf", "-.inf", "nan", "inf",
                                      "1e999", "0x1p-1", "1,5",  "2 3",   "5x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 42;
        if (fields_parse_number(bad[i], &v))
            fail_msg("'%s' should not parse (got %g)", bad[i], v);
    }
}

static void test_parse_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double bytes;
    } ok[] = {{"8", 8},
              {"8B", 8},
              {"64KiB", 65536},
              {"1GiB", 1073741824.0},
              {"1GB", 1e9},
              {"512MB", 512e6},
              {"1.5KB", 1500},
              {"2MiB", 2097152},
              {"1TiB", 1099511627776.0},
              {"3TB", 3e12},
              {"1e3KB", 1e6},
              {"0", 0}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -1;
        if (!fields_parse_bytes(ok[i].text, &v))
            fail_msg("'%s' should parse", ok[i].text);
        assert_float_equal(v, ok[i].bytes, ok[i].bytes * 1e-12);
    }
    static const char *const bad[] = {"",     "GiB",  "1XB", "-1",  "-1GiB", "1 GiB",
                                      "1gib", "lots", "nan", "inf", "1GiBs"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 42;
        if (fields_parse_bytes(bad[i], &v))
            fail_msg("'%s' should not parse (got %g)", bad[i], v);
    }
    double v = 1;
    assert_false(fields_parse_bytes(NULL, &v));
}

/* ------------------------------------------------------------- find, suggest */

static void test_find(void **state)
{
    (void)state;
    assert_non_null(fields_find(&obj_table, "sec.v"));
    assert_ptr_equal(fields_find(&obj_table, "n"), &obj_fields[0]);
    assert_null(fields_find(&obj_table, "sec"));    /* a section is not a field */
    assert_null(fields_find(&obj_table, "N"));      /* case matters */
    assert_null(fields_find(&obj_table, "sec.v.")); /* no prefix matching */
    assert_null(fields_find(&obj_table, ""));
    const struct field_table *t = setup_fields();
    assert_non_null(fields_find(t, "training.tensor_parallel"));
    assert_non_null(fields_find(t, "cluster.node.accelerator"));
    assert_null(fields_find(t, "training"));
}

static void test_suggest(void **state)
{
    (void)state;
    const struct field_table *t = setup_fields();
    const char *s = fields_suggest(t, "training.tensor_paralel");
    assert_non_null(s);
    assert_string_equal(s, "training.tensor_parallel");
    s = fields_suggest(t, "cluster.nodse");
    assert_non_null(s);
    assert_string_equal(s, "cluster.nodes");
    s = fields_suggest(t, "cluster.node.acelerator");
    assert_non_null(s);
    assert_string_equal(s, "cluster.node.accelerator");
    s = fields_suggest(t, "data.cache_hits");
    assert_non_null(s);
    assert_string_equal(s, "data.cache_hit");
    assert_null(fields_suggest(t, "completely.different.thing"));
    assert_null(fields_suggest(t, "zzzzzz"));
    s = fields_suggest(&obj_table, "sec.vv");
    assert_non_null(s);
    assert_string_equal(s, "sec.v");
}

static void test_suggest_word(void **state)
{
    (void)state;
    const char *commands[] = {"catalog", "check", "eval", "collective", "fields"};
    const char *s = fields_suggest_word("evl", commands, 5);
    assert_non_null(s);
    assert_string_equal(s, "eval");
    s = fields_suggest_word("catalgo", commands, 5);
    assert_non_null(s);
    assert_string_equal(s, "catalog");
    s = fields_suggest_word("colective", commands, 5);
    assert_non_null(s);
    assert_string_equal(s, "collective");
    assert_null(fields_suggest_word("frobnicate", commands, 5));
    assert_null(fields_suggest_word("x", commands, 0));
    /* NULL entries (a NULL-terminated list passed with its terminator) are skipped */
    const char *with_null[] = {NULL, "bf16", NULL};
    s = fields_suggest_word("bf61", with_null, 3);
    assert_non_null(s);
    assert_string_equal(s, "bf16");
    /* exact matches are their own suggestion */
    s = fields_suggest_word("check", commands, 5);
    assert_non_null(s);
    assert_string_equal(s, "check");
    /* very long words do not overflow the distance table */
    char longw[300];
    memset(longw, 'a', sizeof longw - 1);
    longw[sizeof longw - 1] = '\0';
    const char *longs[] = {longw, "b"};
    s = fields_suggest_word(longw, longs, 2);
    assert_non_null(s);
    assert_ptr_equal(s, longw);
}

/* ------------------------------------------------------------------ defaults */

static void test_defaults(void **state)
{
    (void)state;
    struct obj o;
    memset(&o, 0x5a, sizeof o);
    fields_apply_defaults(&obj_table, &o);
    assert_int_equal(o.n, 4);
    assert_float_equal(o.x, 2.5, 0);
    assert_float_equal(o.a, FIELD_AUTO, 0);
    assert_true(o.b);
    assert_string_equal(o.s, "hello");
    assert_int_equal(o.e, 1);
    assert_string_equal(o.r, "ref-1");
    assert_float_equal(o.peak, FIELD_ABSENT, 0);
    assert_string_equal(o.opt, "");
    assert_int_equal(o.sec_v, 0);
    assert_float_equal(o.sec_deep_w, 1, 0);
}

/* ------------------------------------------------------------------ set_text */

static void expect_set_fail(const char *path, const char *text, const char *substring)
{
    struct obj o;
    memset(&o, 0, sizeof o); /* padding too: the object is compared with memcmp */
    fields_apply_defaults(&obj_table, &o);
    struct obj before = o;
    char err[256] = "";
    if (fields_set_text(F(path), &o, text, err, sizeof err))
        fail_msg("%s = '%s' should fail", path, text);
    if (!strstr(err, substring))
        fail_msg("%s = '%s': expected '%s' in '%s'", path, text, substring, err);
    if (memcmp(&o, &before, sizeof o) != 0)
        fail_msg("%s = '%s' changed the object although it failed", path, text);
}

static void test_set_text_int(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    assert_true(fields_set_text(F("n"), &o, "12", err, sizeof err));
    assert_int_equal(o.n, 12);
    assert_true(fields_set_text(F("n"), &o, "1e2", err, sizeof err));
    assert_int_equal(o.n, 100);
    assert_true(fields_set_text(F("n"), &o, "1", err, sizeof err)); /* the minimum itself */
    assert_int_equal(o.n, 1);
    expect_set_fail("n", "1.5", "n must be a whole number (got 1.5)");
    expect_set_fail("n", "abc", "n must be a whole number (got 'abc')");
    expect_set_fail("n", "", "n must be a whole number");
    expect_set_fail("n", "0", "n must be between 1 and 100 (got 0)");
    expect_set_fail("n", "101", "n must be between 1 and 100 (got 101)");
    expect_set_fail("n", "-3", "between 1 and 100");
    expect_set_fail("n", "0x10", "whole number");
    expect_set_fail("n", "12abc", "whole number");
    expect_set_fail("n", "1e400", "far too large");
    expect_set_fail("n", "nan", "whole number");
    expect_set_fail("n", "inf", "whole number");
}

static void test_set_text_num(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    assert_true(fields_set_text(F("x"), &o, "0.25", err, sizeof err));
    assert_float_equal(o.x, 0.25, 0);
    assert_true(fields_set_text(F("x"), &o, "10", err, sizeof err)); /* the maximum itself */
    assert_float_equal(o.x, 10, 0);
    assert_true(fields_set_text(F("x"), &o, "  7 ", err, sizeof err) ||
                strstr(err, "number") != NULL);
    expect_set_fail("x", "0", "x must be above 0 and at most 10 (got 0)"); /* FIELD_EXCL_MIN */
    expect_set_fail("x", "10.5", "above 0 and at most 10");
    expect_set_fail("x", "auto", "x must be a number (got 'auto')");
    expect_set_fail("x", "1,5", "must be a number");
    expect_set_fail("x", "null", "must be a number"); /* not nullable */

    /* nullable numbers take "null" as absent */
    assert_true(fields_set_text(F("peak"), &o, "312", err, sizeof err));
    assert_float_equal(o.peak, 312, 0);
    assert_true(fields_set_text(F("peak"), &o, "null", err, sizeof err));
    assert_float_equal(o.peak, FIELD_ABSENT, 0);
    expect_set_fail("peak", "0", "above 0");
}

static void test_set_text_auto(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    assert_true(fields_set_text(F("a"), &o, "30", err, sizeof err));
    assert_float_equal(o.a, 30, 0);
    assert_true(fields_set_text(F("a"), &o, "auto", err, sizeof err));
    assert_float_equal(o.a, FIELD_AUTO, 0);
    expect_set_fail("a", "automatic", "a must be a number or 'auto' (got 'automatic')");
    expect_set_fail("a", "Auto", "a number or 'auto'");
    expect_set_fail("a", "2000", "between 0 and 1000");
}

static void test_set_text_bool(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    static const char *const yes[] = {"true", "yes", "on"};
    static const char *const no[] = {"false", "no", "off"};
    for (size_t i = 0; i < 3; i++) {
        assert_true(fields_set_text(F("b"), &o, no[i], err, sizeof err));
        assert_false(o.b);
        assert_true(fields_set_text(F("b"), &o, yes[i], err, sizeof err));
        assert_true(o.b);
    }
    expect_set_fail("b", "1", "b must be true or false (got '1')");
    expect_set_fail("b", "ture", "true or false");
    expect_set_fail("b", "", "true or false");
}

static void test_set_text_enum(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    assert_true(fields_set_text(F("e"), &o, "blue", err, sizeof err));
    assert_int_equal(o.e, 2);
    assert_string_equal(fields_get_string(F("e"), &o), "blue");
    expect_set_fail("e", "gren",
                    "e must be one of red, green, blue (got 'gren'); did you mean 'green'?");
    expect_set_fail("e", "purple", "e must be one of red, green, blue (got 'purple')");
    expect_set_fail("e", "RED", "one of red, green, blue");
    expect_set_fail("e", "1", "one of red, green, blue"); /* indexes are not names */

    /* the setup's precision: did-you-mean for a transposition */
    struct setup s;
    setup_defaults(&s);
    const struct field *p = fields_find(setup_fields(), "training.precision");
    assert_false(fields_set_text(p, &s, "bf61", err, sizeof err));
    assert_non_null(strstr(err, "did you mean 'bf16'?"));
    assert_false(fields_set_text(p, &s, "double", err, sizeof err));
    assert_null(strstr(err, "did you mean"));
}

static void test_set_text_strings(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    assert_true(fields_set_text(F("s"), &o, "any text, even 12", err, sizeof err));
    assert_string_equal(o.s, "any text, even 12");
    assert_true(fields_set_text(F("r"), &o, "h100-sxm", err, sizeof err));
    assert_string_equal(o.r, "h100-sxm");
    char longid[FIELD_STR_LEN + 10];
    memset(longid, 'a', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    expect_set_fail("r", longid, "r: id is too long (73 characters, at most 63)");
    /* long text is refused, not silently cut */
    expect_set_fail("s", longid, "s is too long (73 characters, at most 63)");
    /* control characters (terminal escapes, newlines) are refused with the place */
    expect_set_fail("s", "red \x1b[31m", "s contains a control character (code 27) at character 5");
    expect_set_fail("s", "two\nlines", "control character (code 10) at character 4");
    /* C1 controls and Unicode line/paragraph separators: YAML reads NEL, LS and PS as
     * line breaks, so such a name would not write back as itself */
    expect_set_fail("s", "two\xc2\x85lines",
                    "Unicode control or line-break character at character 4");
    expect_set_fail("s",
                    "a\xe2\x80\xa8"
                    "b",
                    "Unicode control or line-break character at character 2");
    expect_set_fail("s",
                    "csi \xc2\x9b"
                    "31m",
                    "Unicode control or line-break character at character 5");
}

/* ----------------------------------------------------------------- set_number */

static void test_set_number(void **state)
{
    (void)state;
    struct obj o;
    char err[256];
    fields_apply_defaults(&obj_table, &o);
    assert_true(fields_set_number(F("n"), &o, 50, err, sizeof err));
    assert_int_equal(o.n, 50);
    assert_false(fields_set_number(F("n"), &o, 50.5, err, sizeof err));
    assert_non_null(strstr(err, "whole number"));
    assert_false(fields_set_number(F("n"), &o, NAN, err, sizeof err));
    assert_non_null(strstr(err, "finite"));
    assert_false(fields_set_number(F("x"), &o, INFINITY, err, sizeof err));
    assert_false(fields_set_number(F("x"), &o, -1, err, sizeof err));
    assert_float_equal(o.x, 2.5, 0);
    /* -1 is a number like any other, not a back door to "auto" or "absent" */
    assert_true(fields_set_number(F("a"), &o, 7, err, sizeof err));
    assert_false(fields_set_number(F("a"), &o, FIELD_AUTO, err, sizeof err));
    assert_non_null(strstr(err, "between 0 and 1000 (got -1)"));
    assert_float_equal(o.a, 7, 0);
    assert_false(fields_set_number(F("peak"), &o, FIELD_ABSENT, err, sizeof err));
    assert_true(fields_set_auto(F("a"), &o, err, sizeof err));
    assert_float_equal(o.a, FIELD_AUTO, 0);
    assert_true(fields_set_auto(F("peak"), &o, err, sizeof err));
    assert_float_equal(o.peak, FIELD_ABSENT, 0);
    assert_false(fields_set_auto(F("x"), &o, err, sizeof err));
    assert_non_null(strstr(err, "x has no automatic value"));
    /* subnormal numbers pass "above 0" but divide into inf */
    assert_false(fields_set_number(F("x"), &o, 4.9e-324, err, sizeof err));
    assert_non_null(strstr(err, "too small to compute with"));
    /* -0 is stored as 0 (no "-0" in any output) */
    assert_true(fields_set_number(F("sec.deep.w"), &o, -0.0, err, sizeof err));
    assert_false(signbit(o.sec_deep_w));
    assert_true(fields_set_number(F("b"), &o, 0, err, sizeof err));
    assert_false(o.b);
    assert_true(fields_set_number(F("e"), &o, 0, err, sizeof err));
    assert_int_equal(o.e, 0);
    assert_false(fields_set_number(F("e"), &o, 3, err, sizeof err));
    assert_non_null(strstr(err, "out of range"));
    assert_false(fields_set_number(F("e"), &o, 1.5, err, sizeof err));
    assert_false(fields_set_number(F("e"), &o, -1, err, sizeof err));
    assert_false(fields_set_number(F("s"), &o, 1, err, sizeof err));
    assert_non_null(strstr(err, "takes text"));
    assert_false(fields_set_number(F("r"), &o, 1, err, sizeof err));
}

/* ------------------------------------------------------------- format, describe */

static void test_describe_range(void **state)
{
    (void)state;
    char buf[64];
    fields_describe_range(F("n"), buf, sizeof buf);
    assert_string_equal(buf, "1..100");
    fields_describe_range(F("x"), buf, sizeof buf);
    assert_string_equal(buf, ">0..10");
    fields_describe_range(F("peak"), buf, sizeof buf);
    assert_string_equal(buf, ">0..1000000");
    fields_describe_range(F("s"), buf, sizeof buf);
    assert_string_equal(buf, "");
}

static void test_format_and_describe(void **state)
{
    (void)state;
    struct obj o;
    char buf[128];
    fields_apply_defaults(&obj_table, &o);
    fields_format(F("n"), &o, buf, sizeof buf);
    assert_string_equal(buf, "4");
    fields_format(F("x"), &o, buf, sizeof buf);
    assert_string_equal(buf, "2.5");
    fields_format(F("a"), &o, buf, sizeof buf);
    assert_string_equal(buf, "auto");
    fields_format(F("b"), &o, buf, sizeof buf);
    assert_string_equal(buf, "true");
    fields_format(F("e"), &o, buf, sizeof buf);
    assert_string_equal(buf, "green");
    fields_format(F("peak"), &o, buf, sizeof buf);
    assert_string_equal(buf, "-");
    fields_format(F("r"), &o, buf, sizeof buf);
    assert_string_equal(buf, "ref-1");
    o.x = 1.0 / 3.0;
    fields_format(F("x"), &o, buf, sizeof buf);
    assert_string_equal(buf, "0.333333");
    assert_float_equal(fields_get_number(F("x"), &o), 1.0 / 3.0, 0);
    assert_float_equal(fields_get_number(F("b"), &o), 1, 0);
    assert_float_equal(fields_get_number(F("e"), &o), 1, 0);
    assert_null(fields_get_string(F("n"), &o));

    fields_describe_type(F("n"), buf, sizeof buf);
    assert_string_equal(buf, "a whole number");
    fields_describe_type(F("x"), buf, sizeof buf);
    assert_string_equal(buf, "a number");
    fields_describe_type(F("a"), buf, sizeof buf);
    assert_string_equal(buf, "a number or 'auto'");
    fields_describe_type(F("b"), buf, sizeof buf);
    assert_string_equal(buf, "true or false");
    fields_describe_type(F("e"), buf, sizeof buf);
    assert_string_equal(buf, "one of red, green, blue");
    fields_describe_type(F("r"), buf, sizeof buf);
    assert_string_equal(buf, "a catalog id");
    char tiny[8];
    fields_describe_type(F("e"), tiny, sizeof tiny); /* truncates without overflow */
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

/* ------------------------------------------------------------------- bind_yaml */

struct bound {
    struct ydoc *doc;
    struct obj o;
    bool seen[sizeof obj_fields / sizeof obj_fields[0]];
    bool ok;
    char err[512];
};

static void bind(struct bound *b, const char *text)
{
    char err[256];
    memset(b, 0, sizeof *b);
    b->doc = ydoc_load_string("b.yaml", text, strlen(text), err, sizeof err);
    if (!b->doc)
        fail_msg("YAML did not load: %s", err);
    fields_apply_defaults(&obj_table, &b->o);
    b->ok = fields_bind_yaml(&obj_table, b->doc->root, "", "b.yaml", &b->o, b->seen, b->err,
                             sizeof b->err);
    ydoc_free(b->doc);
    b->doc = NULL;
}

static void expect_bind_error(const char *text, const char *message)
{
    struct bound b;
    bind(&b, text);
    if (b.ok)
        fail_msg("'%s' bound but should fail with '%s'", text, message);
    if (strcmp(b.err, message) != 0)
        fail_msg("expected '%s', got '%s'", message, b.err);
}

static void test_bind_ok(void **state)
{
    (void)state;
    struct bound b;
    bind(&b, "n: 7\nx: 1.5\na: auto\nb: no\ns: \"12\"\ne: 'blue'\nr: id-2\npeak: null\nopt: ~\n"
             "sec: {v: 3, deep: {w: 9}}\n");
    if (!b.ok)
        fail_msg("%s", b.err);
    assert_int_equal(b.o.n, 7);
    assert_float_equal(b.o.x, 1.5, 0);
    assert_float_equal(b.o.a, FIELD_AUTO, 0);
    assert_false(b.o.b);
    assert_string_equal(b.o.s, "12"); /* quoted numbers are fine as text */
    assert_int_equal(b.o.e, 2);       /* and quoted choices are fine */
    assert_string_equal(b.o.r, "id-2");
    assert_float_equal(b.o.peak, FIELD_ABSENT, 0);
    assert_string_equal(b.o.opt, "");
    assert_int_equal(b.o.sec_v, 3);
    assert_float_equal(b.o.sec_deep_w, 9, 0);
    for (size_t i = 0; i < sizeof b.seen / sizeof b.seen[0]; i++)
        assert_true(b.seen[i]);

    bind(&b, "n: 2\n");
    assert_true(b.ok);
    assert_true(b.seen[0]);
    for (size_t i = 1; i < sizeof b.seen / sizeof b.seen[0]; i++)
        assert_false(b.seen[i]);
    assert_float_equal(b.o.x, 2.5, 0); /* untouched fields keep their defaults */
}

static void test_bind_errors(void **state)
{
    (void)state;
    expect_bind_error("x: 1\n", "b.yaml:1:1: missing required key 'n'");
    expect_bind_error("n: 1\nm: 2\n", "b.yaml:2:1: unknown key 'm' (did you mean 'n'?)");
    expect_bind_error("n: 1\nsec: {v: 1, vv: 2}\n",
                      "b.yaml:2:13: unknown key 'sec.vv' (did you mean 'sec.v'?)");
    expect_bind_error("n: 1\nsomething_else: 2\n", "b.yaml:2:1: unknown key 'something_else'");
    expect_bind_error("n: \"5\"\n",
                      "b.yaml:1:4: n must be a whole number, found the quoted text \"5\"");
    expect_bind_error("n: [5]\n", "b.yaml:1:4: n must be a whole number, found a list");
    expect_bind_error("n: 1\nb: {}\n", "b.yaml:2:4: b must be true or false, found a mapping");
    expect_bind_error("n:\n", "b.yaml:1:3: n needs a value (a whole number)");
    expect_bind_error("n: 1\nr: ~\n", "b.yaml:2:4: r needs a value (a catalog id)");
    expect_bind_error("n: 1\nsec: 4\n",
                      "b.yaml:2:6: sec must be a mapping of keys, found a single value");
    expect_bind_error("n: 1\nsec: [1]\n",
                      "b.yaml:2:6: sec must be a mapping of keys, found a list");
    expect_bind_error("n: 1\nx:   11\n", "b.yaml:2:6: x must be above 0 and at most 10 (got 11)");
    expect_bind_error("n: 1\nsec:\n  deep:\n    w: -1\n",
                      "b.yaml:4:8: sec.deep.w must be between 0 and 10 (got -1)");
    expect_bind_error("- n: 1\n", "b.yaml:1:1: the file must be a mapping of keys, found a list");
    expect_bind_error("n: 1\ne: gren\n", "b.yaml:2:4: e must be one of red, green, blue (got "
                                         "'gren'); did you mean 'green'?");

    /* a NULL root (an empty document) */
    char err[256];
    struct obj o;
    fields_apply_defaults(&obj_table, &o);
    assert_false(fields_bind_yaml(&obj_table, NULL, "", "e.yaml", &o, NULL, err, sizeof err));
    assert_string_equal(err, "e.yaml:1:1: the file must be a mapping of keys, found nothing");
}

static void test_bind_prefix(void **state)
{
    (void)state;
    /* Binding a sub-mapping with a prefix (how sections recurse). */
    char err[256];
    const char *text = "v: 4\ndeep: {w: 2}\n";
    struct ydoc *doc = ydoc_load_string("p.yaml", text, strlen(text), err, sizeof err);
    assert_non_null(doc);
    struct obj o;
    fields_apply_defaults(&obj_table, &o);
    assert_true(
        fields_bind_yaml(&obj_table, doc->root, "sec", "p.yaml", &o, NULL, err, sizeof err));
    assert_int_equal(o.sec_v, 4);
    assert_float_equal(o.sec_deep_w, 2, 0);
    ydoc_free(doc);
}

/* The knob columns of the setup table: every knob has a label, every
 * "auto" knob names where its automatic value comes from, and steps fit
 * inside the range. */
static void test_knob_columns(void **state)
{
    (void)state;
    const struct field_table *t = setup_fields();
    int knobs = 0, autos = 0;
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (!(f->flags & FIELD_KNOB)) {
            assert_null(f->label);
            continue;
        }
        knobs++;
        assert_non_null(f->label);
        assert_true(f->label[0] != '\0' && strlen(f->label) < 24);
        assert_true(f->step >= 0 && f->step <= f->max - f->min);
        if (f->type == FIELD_NUM_AUTO && f->auto_from) {
            autos++;
            const char *from = f->auto_from;
            int in_infer = 0;
            if (strncmp(from, "accelerator.", 12) == 0)
                assert_non_null(fields_find(catalog_fields(CATALOG_ACCELERATOR), from + 12));
            else if (strncmp(from, "infer.", 6) == 0) {
                for (size_t k = 0; k < infer_report_field_count; k++)
                    in_infer += strcmp(infer_report_fields[k].key, from + 6) == 0;
                assert_int_equal(in_infer, 1);
            } else
                assert_non_null(report_field_find(from));
        } else {
            assert_null(f->auto_from);
        }
    }
    assert_true(knobs >= 40);
    assert_int_equal(autos, 6);
    const struct field *w = fields_find(t, "data.loader_workers_per_device");
    assert_string_equal(w->label, "loader workers/device");
    assert_true(fields_find(t, "data.cache_hit")->step == 0.05);
    assert_true(fields_find(t, "training.zero_stage")->step == 1);
}

/* Lookups by path go through a hash index built on first use: every path of
 * the real tables finds its own row (the first of twins in a table of our
 * own), unknown paths find nothing, and a table whose rows change at the
 * same address (a table on the stack) is still read as it is now. */
static void test_find_indexed(void **state)
{
    (void)state;
    const struct field_table *tables[CATALOG_KIND_COUNT + 1];
    tables[0] = setup_fields();
    for (int k = 0; k < CATALOG_KIND_COUNT; k++)
        tables[k + 1] = catalog_fields((enum catalog_kind)k);
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (size_t i = 0; i < tables[t]->count; i++) {
            const struct field *first = &tables[t]->fields[i];
            for (size_t j = 0; j < i; j++)
                if (strcmp(tables[t]->fields[j].path, first->path) == 0) {
                    first = &tables[t]->fields[j];
                    break;
                }
            assert_ptr_equal(fields_find(tables[t], tables[t]->fields[i].path), first);
        }
        assert_null(fields_find(tables[t], "no.such.path"));
        assert_null(fields_find(tables[t], ""));
    }
    struct field rows[3] = {{.path = "a.one"}, {.path = "b.two"}, {.path = "a.one"}};
    struct field_table own = {"own", rows, 3};
    assert_ptr_equal(fields_find(&own, "a.one"), &rows[0]);
    assert_ptr_equal(fields_find(&own, "b.two"), &rows[1]);
    rows[0].path = "b.two";
    rows[1].path = "c.three";
    rows[2].path = "d.four";
    assert_ptr_equal(fields_find(&own, "b.two"), &rows[0]);
    assert_ptr_equal(fields_find(&own, "c.three"), &rows[1]);
    assert_ptr_equal(fields_find(&own, "d.four"), &rows[2]);
    assert_null(fields_find(&own, "a.one"));
    /* Report keys: each finds its own row. */
    for (size_t i = 0; i < report_field_count; i++)
        assert_ptr_equal(report_field_find(report_fields[i].key), &report_fields[i]);
    assert_null(report_field_find("memory"));
    assert_null(report_field_find("memory.fits "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_duration), cmocka_unit_test(test_parse_number_strict),
        cmocka_unit_test(test_parse_bytes),    cmocka_unit_test(test_find),
        cmocka_unit_test(test_find_indexed),   cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_suggest_word),   cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_set_text_int),   cmocka_unit_test(test_set_text_num),
        cmocka_unit_test(test_set_text_auto),  cmocka_unit_test(test_set_text_bool),
        cmocka_unit_test(test_set_text_enum),  cmocka_unit_test(test_set_text_strings),
        cmocka_unit_test(test_set_number),     cmocka_unit_test(test_format_and_describe),
        cmocka_unit_test(test_describe_range), cmocka_unit_test(test_bind_ok),
        cmocka_unit_test(test_bind_errors),    cmocka_unit_test(test_bind_prefix),
        cmocka_unit_test(test_knob_columns),
    };
    return cmocka_run_group_tests_name("fields", tests, NULL, NULL);
}
