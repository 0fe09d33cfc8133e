/* Unit tests of the report's one description (report_fields), the output
 * gate for numbers, the formatters, string escaping and the CSV writer. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "csv.h"
#include "model.h"
#include "report.h"

#include "../../catalog_fixture.h"

/* Runs fn(out) into a memory stream and returns the text (caller frees). */
static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(f, arg);
    fclose(f);
    return buf;
}

/* Marks the bytes of one table over a struct of `size` bytes at `base`. */
static void cover(const struct report_field *t, size_t n, size_t base, size_t size,
                  unsigned char *covered)
{
    for (size_t i = 0; i < n; i++) {
        if (t[i].size == 0)
            continue; /* from the setup or the catalog, not the struct */
        assert_true(t[i].offset + t[i].size <= size);
        memset(covered + base + t[i].offset, 1, t[i].size);
    }
}

/* Every member of struct model_report is in report_fields[]: each 8-byte
 * aligned slot of the struct is covered by some row (padding is always
 * shorter than a double, so an uncovered slot is a missing member). The
 * suggestions' own table covers struct suggestion the same way. */
static void test_table_covers_every_member(void **state)
{
    (void)state;
    unsigned char covered[sizeof(struct model_report)] = {0};
    cover(report_fields, report_field_count, 0, sizeof covered, covered);
    /* n_suggestions is the list's length, written as the list. */
    memset(covered + offsetof(struct model_report, n_suggestions), 1, sizeof(int));
    for (size_t at = 0; at + sizeof(double) <= sizeof covered; at += sizeof(double)) {
        bool any = false;
        for (size_t k = 0; k < sizeof(double); k++)
            any = any || covered[at + k];
        if (!any)
            fail_msg("bytes %zu..%zu of struct model_report are in no report_fields row", at,
                     at + sizeof(double) - 1);
    }
    unsigned char sub[sizeof(struct suggestion)] = {0};
    cover(report_suggestion_fields, report_suggestion_field_count, 0, sizeof sub, sub);
    for (size_t at = 0; at + sizeof(double) <= sizeof sub; at += sizeof(double)) {
        bool any = false;
        for (size_t k = 0; k < sizeof(double); k++)
            any = any || sub[at + k];
        if (!any)
            fail_msg("bytes %zu.. of struct suggestion are in no row", at);
    }
    /* Each double row is exactly one double. */
    for (size_t i = 0; i < report_field_count; i++)
        if (report_fields[i].type == REPORT_NUM)
            assert_int_equal(report_fields[i].size, sizeof(double));
}

/* The guard finds a NaN in a member that the old hand-counted lengths
 * skipped (power.cooling_headroom), zeroes it, and names it. */
static void test_sanitize_names_the_field(void **state)
{
    (void)state;
    struct model_report o;
    memset(&o, 0, sizeof o);
    o.power.cooling_headroom = NAN;
    o.reliability.goodput = -0.0;
    o.n_suggestions = 1;
    o.suggestions[0].saves_gb = INFINITY;
    const char *bad = report_sanitize(&o);
    assert_non_null(bad);
    assert_string_equal(bad, "power.cooling_headroom");
    assert_true(o.power.cooling_headroom == 0 && !signbit(o.power.cooling_headroom));
    assert_false(signbit(o.reliability.goodput));
    assert_true(o.suggestions[0].saves_gb == 0);
    /* Every double, one at a time. */
    for (size_t i = 0; i < report_field_count; i++) {
        if (report_fields[i].type != REPORT_NUM)
            continue;
        memset(&o, 0, sizeof o);
        double inf = INFINITY;
        memcpy((char *)&o + report_fields[i].offset, &inf, sizeof inf);
        bad = report_sanitize(&o);
        assert_non_null(bad);
        assert_string_equal(bad, report_fields[i].key);
    }
    memset(&o, 0, sizeof o);
    assert_null(report_sanitize(&o));
}

/* The walk keeps the documented key order of `mlviz eval --format json`. */
static void test_keys_and_groups(void **state)
{
    (void)state;
    static const char *const expect[] = {"name",        "runnable",       "why_not",
                                         "step_time_s", "layout.devices", "breakdown_s.data_read",
                                         "memory.fits", "suggestions",    "checks.rack_power_ok"};
    size_t at = 0;
    for (size_t i = 0; i < report_field_count && at < sizeof expect / sizeof expect[0]; i++)
        if (strcmp(report_fields[i].key, expect[at]) == 0)
            at++;
    assert_int_equal(at, sizeof expect / sizeof expect[0]);
    assert_string_equal(report_fields[report_field_count - 1].key, "checks.rack_power_ok");
    /* Groups are contiguous: a group never reopens. */
    for (size_t i = 0; i < report_field_count; i++) {
        const char *dot = strchr(report_fields[i].key, '.');
        if (!dot)
            continue;
        size_t g = (size_t)(dot - report_fields[i].key);
        bool closed = false;
        for (size_t j = i + 1; j < report_field_count; j++) {
            bool same = strncmp(report_fields[j].key, report_fields[i].key, g + 1) == 0;
            if (!same)
                closed = true;
            else if (closed)
                fail_msg("group of %s reopens at %s", report_fields[i].key, report_fields[j].key);
        }
    }
}

static const double hostile[] = {NAN,      INFINITY,  -INFINITY, -0.0,   -1e-300, 1e-300,
                                 4.9e-324, -4.9e-324, 1e300,     -1e300, DBL_MAX, -DBL_MAX,
                                 0.0004,   -0.0004,   999.999,   1e15,   -1e15,   123456789.0};

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* True when text holds the word nan or inf (any case) or a negative zero. */
static bool dirty(const char *text)
{
    for (const char *p = text; *p; p++) {
        bool word_start = p == text || !is_letter(p[-1]);
        if (word_start && (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) &&
            !is_letter(p[3]))
            return true;
        if (*p == '-' && p[1] == '0') {
            const char *q = p + 1;
            while (*q == '0' || *q == '.')
                q++;
            if (!(*q >= '1' && *q <= '9'))
                return true;
        }
    }
    return false;
}

/* The formatters under one signature, with the longest output allowed. */
static void fmt_si(char *b, size_t n, double v)
{
    format_si(b, n, v, "W");
}
static void fmt_fixed(char *b, size_t n, double v)
{
    format_fixed(b, n, v, 2);
}
static void fmt_significant(char *b, size_t n, double v)
{
    format_significant(b, n, v, 3);
}
static void fmt_short(char *b, size_t n, double v)
{
    format_short(b, n, v, 6);
}
static void fmt_machine(char *b, size_t n, double v)
{
    output_format_number(b, n, v, 10);
}

static const struct {
    const char *name;
    void (*fn)(char *, size_t, double);
    size_t max_len;
} formatters[] = {
    {"format_si", fmt_si, 16},          {"format_duration", format_duration, 16},
    {"format_fixed", fmt_fixed, 24},    {"format_percent", format_percent, 24},
    {"format_usd", format_usd, 16},     {"output_format_number", fmt_machine, 25},
    {"format_clock", format_clock, 20}, {"format_significant", fmt_significant, 24},
    {"format_short", fmt_short, 24},
};

static void test_formatters_never_print_nonsense(void **state)
{
    (void)state;
    char buf[64];
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        double v = hostile[i];
        for (size_t k = 0; k < sizeof formatters / sizeof formatters[0]; k++) {
            formatters[k].fn(buf, sizeof buf, v);
            if (dirty(buf) || strlen(buf) >= formatters[k].max_len)
                fail_msg("%s(%g) = '%s'", formatters[k].name, v, buf);
        }
        double out = output_number(v);
        assert_true(isfinite(out));
        assert_false(out == 0 && signbit(out));
    }
    format_usd(buf, sizeof buf, -0.2);
    assert_string_equal(buf, "-$0.20");
    format_usd(buf, sizeof buf, -0.0001);
    assert_string_equal(buf, "$0.00");
    format_si(buf, sizeof buf, 86845.1, "");
    assert_string_equal(buf, "86.8 k");
    format_percent(buf, sizeof buf, 0.6353);
    assert_string_equal(buf, "63.5%");
    format_duration(buf, sizeof buf, 12.07);
    assert_string_equal(buf, "12.07 s");
}

static void test_integers_exact(void **state)
{
    (void)state;
    char buf[64];
    output_format_number(buf, sizeof buf, 1e6, 10);
    assert_string_equal(buf, "1000000");
    output_format_number(buf, sizeof buf, 9007199254740991.0, 10);
    assert_string_equal(buf, "9007199254740991");
    output_format_number(buf, sizeof buf, 174580039680.0, 10);
    assert_string_equal(buf, "174580039680");
    output_format_number(buf, sizeof buf, 0.5, 10);
    assert_string_equal(buf, "0.5");
    output_format_number(buf, sizeof buf, -0.0, 10);
    assert_string_equal(buf, "0");
    /* Past 2^53: whole when ten digits would round, else the short form. */
    output_format_number(buf, sizeof buf, 9007199254740994.0, 10);
    assert_string_equal(buf, "9007199254740994");
    output_format_number(buf, sizeof buf, 9223372036854775807.0, 10);
    assert_string_equal(buf, "9223372036854775808");
    output_format_number(buf, sizeof buf, -9223372036854775807.0, 10);
    assert_string_equal(buf, "-9223372036854775808");
    output_format_number(buf, sizeof buf, 1e18, 10);
    assert_string_equal(buf, "1e+18");
    output_format_number(buf, sizeof buf, 12345678901234567e5, 10);
    assert_true(strtod(buf, NULL) == 12345678901234567e5);
}

static void write_uint_max(FILE *f, const void *arg)
{
    (void)arg;
    struct json_writer w;
    json_begin(&w, f, false);
    json_key_uint(&w, "seed", UINT64_MAX);
    json_key_num(&w, "n", 1e6);
    json_key_num(&w, "z", -0.0);
    json_key_num(&w, "i", INFINITY);
    json_finish(&w);
}

static void test_json_numbers(void **state)
{
    (void)state;
    char *t = capture(write_uint_max, NULL);
    assert_string_equal(t, "{\"seed\":18446744073709551615,\"n\":1000000,\"z\":0,\"i\":0}\n");
    free(t);
}

static void write_json_string(FILE *f, const void *arg)
{
    json_write_string(f, arg);
}

static void test_json_strings_are_utf8(void **state)
{
    (void)state;
    /* ESC, BEL, DEL, a C1 CSI (U+009B), valid UTF-8, a lone Latin-1 byte,
     * an overlong '/', a surrogate, a truncated sequence at the end. */
    char *t = capture(write_json_string, "a\x1b[2J\x07\x7f\xc2\x9b caf\xc3\xa9 \xe9 \xc0\xaf "
                                         "\xed\xa0\x80 \"q\" \\ \xe2\x82");
    assert_string_equal(t, "\"a\\u001b[2J\\u0007\\u007f\\u009b caf\xc3\xa9 \xef\xbf\xbd "
                           "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                           "\\\"q\\\" \\\\ \xef\xbf\xbd\xef\xbf\xbd\"");
    free(t);
}

static void test_printable(void **state)
{
    (void)state;
    char buf[64];
    format_printable(buf, sizeof buf, "evil \x1b[2J\xc2\x9b\n caf\xc3\xa9 \xff");
    assert_string_equal(buf, "evil \\x1b[2J\\x9b\\x0a caf\xc3\xa9 ?");
    /* Truncation never splits an escape or a character. */
    format_printable(buf, 8, "ab\x1b\x1b");
    assert_string_equal(buf, "ab\\x1b");
    format_printable(buf, 4, "a\xc3\xa9\xc3\xa9");
    assert_string_equal(buf, "a\xc3\xa9");
}

static void write_csv_cases(FILE *f, const void *arg)
{
    (void)arg;
    static const char *const cases[] = {"plain", "a,b",    "say \"hi\"", "line\nbreak", "cr\rhere",
                                        " lead", "trail ", "",           NULL};
    struct csv_row row;
    csv_row_begin(&row, f);
    for (size_t i = 0; cases[i] || i == 8; i++) {
        csv_row_field(&row, cases[i]);
        if (!cases[i])
            break;
    }
    csv_row_number(&row, -0.0, 6);
    csv_row_number(&row, NAN, 6);
    csv_row_number(&row, 2.5, 6);
    csv_row_end(&row);
}

static void test_csv_rfc4180(void **state)
{
    (void)state;
    char *t = capture(write_csv_cases, NULL);
    assert_string_equal(t, "plain,\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\",\"cr\rhere\","
                           "\" lead\",\"trail \",,,0,0,2.5\n");
    free(t);
}

static void write_csv_hostile(FILE *f, const void *arg)
{
    (void)arg;
    struct csv_row row;
    csv_row_begin(&row, f);
    csv_row_field(&row, "a\r\nb");
    csv_row_field(&row, "  two leading");
    csv_row_field(&row, "\"\",\"");
    csv_row_field(&row, "x, \"y\"\r\n");
    csv_row_field(&row, "in side");
    csv_row_end(&row);
}

/* CR/LF together, several leading spaces, only quotes and commas. */
static void test_csv_hostile_fields(void **state)
{
    (void)state;
    char *t = capture(write_csv_hostile, NULL);
    assert_string_equal(t, "\"a\r\nb\",\"  two leading\",\"\"\"\"\",\"\"\","
                           "\"x, \"\"y\"\"\r\n\",in side\n");
    free(t);
}

struct eval_case {
    const struct setup *s;
    const struct resolved *r;
    const struct model_report *o;
    int format;
};

static void write_report(FILE *f, const void *arg)
{
    const struct eval_case *c = arg;
    if (c->format == FORMAT_JSON)
        report_write_json(f, c->s, c->r, c->o);
    else if (c->format == FORMAT_CSV)
        report_write_csv(f, c->s, c->r, c->o, true);
    else
        report_write_text(f, c->s, c->r, c->o);
}

/* A report whose numbers are all hostile still prints clean in every form
 * (the writers go through the gate even when the model's guard is not). */
static void test_writers_on_a_hostile_report(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    snprintf(s.name, sizeof s.name, "n\x1b]0;x\x07");
    struct resolved r;
    char err[256];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    struct model_report o;
    model_eval(&s, &r, &o);
    for (size_t k = 0; k < sizeof hostile / sizeof hostile[0]; k++) {
        for (size_t i = 0; i < report_field_count; i++)
            if (report_fields[i].type == REPORT_NUM)
                memcpy((char *)&o + report_fields[i].offset, &hostile[k], sizeof(double));
        for (int format = FORMAT_TEXT; format <= FORMAT_JSON; format++) {
            struct eval_case c = {&s, &r, &o, format};
            char *t = capture(write_report, &c);
            /* CSV keeps strings as they are (data); text and JSON escape. */
            bool raw = format != FORMAT_CSV && (strchr(t, '\x1b') || strchr(t, '\x07'));
            if (dirty(t) || raw)
                fail_msg("format %d, value %g:\n%s", format, hostile[k], t);
            free(t);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_covers_every_member),
        cmocka_unit_test(test_sanitize_names_the_field),
        cmocka_unit_test(test_keys_and_groups),
        cmocka_unit_test(test_formatters_never_print_nonsense),
        cmocka_unit_test(test_integers_exact),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_json_strings_are_utf8),
        cmocka_unit_test(test_printable),
        cmocka_unit_test(test_csv_rfc4180),
        cmocka_unit_test(test_csv_hostile_fields),
        cmocka_unit_test(test_writers_on_a_hostile_report),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
