/* units: the one table of the units mlviz reads and writes.
 *
 * Durations ("90s", "20m", "6h"), byte counts ("64MiB"), SI prefixes (the
 * "k", "M", "G" of format_si), the clock (d hh:mm:ss) and percentages all
 * come from units_table[]: the parsers (fields_parse_duration, the sim's
 * --duration, Lua's mlviz.parse_duration, the CLI's --size and --memory)
 * and the formatters (format_duration, format_si, format_percent, the
 * TUI's clock) read the same rows.
 *
 * Every number that reaches any output goes through output_number() (or a
 * formatter built on it): no nan, inf or -0 is ever printed. */
#ifndef MLVIZ_UNITS_H
#define MLVIZ_UNITS_H

#include <stdbool.h>
#include <stddef.h>

enum unit_kind { UNIT_DURATION, UNIT_BYTES, UNIT_SI, UNIT_PERCENT };

/* How a row is used: read after a number, written by a formatter. */
enum { UNIT_PARSE = 1u << 0, UNIT_FORMAT = 1u << 1 };

struct unit {
    enum unit_kind kind;
    const char *symbol; /* "ms", "MiB", "k"; "" for a bare number */
    double scale;       /* the base unit (second, byte, 1) per symbol */
    unsigned use;       /* UNIT_PARSE | UNIT_FORMAT */
    /* UNIT_FORMAT durations: the row is used below this many seconds,
     * with this many decimals (-1: three significant digits). */
    double below_s;
    int decimals;
};

extern const struct unit units_table[];
extern const size_t units_count;

/* The scale of `symbol` among the rows of `kind`, 0 when there is none. */
double units_scale(enum unit_kind kind, const char *symbol);

/* Strict decimal syntax: digits, one point, an exponent; no hex, inf or
 * nan (which strtod would take). The length of the number at s, or 0. */
size_t units_decimal_length(const char *s);

/* A strict decimal number (no sign below zero) followed by one of the
 * UNIT_PARSE symbols of `kind`; false for anything else, and for a result
 * that overflows or underflows. */
bool units_parse(enum unit_kind kind, const char *text, double *out);

/* The one gate from a double to output: non-finite -> 0, -0 -> 0. */
double output_number(double v);
/* A number for machines (JSON, CSV): integer-valued numbers exactly
 * (whole below 1e19, past every 64-bit count; beyond, digits enough to
 * read back the same double), others with `digits` significant digits. */
void output_format_number(char *buf, size_t len, double v, int digits);
/* A number for people with `decimals` decimals; from 1e9 three
 * significant digits with an SI prefix ("2.50 T", as format_si): never an
 * exponent, never a 300-digit number. */
void format_fixed(char *buf, size_t len, double v, int decimals);
/* `digits` significant digits in fixed notation ("0.023", "2.3", "23" for
 * two), the whole part never rounded ("2345"); below 1e-9 "0", from 1e9
 * as format_fixed. The screen's counts and GB figures. */
void format_significant(char *buf, size_t len, double v, int digits);
/* format_significant without trailing zeros after the point ("0.5",
 * "0.00003", "2097152", "2.5 T"): a value someone set, as they would
 * write it. */
void format_short(char *buf, size_t len, double v, int digits);
/* The noun for `count` of something, given in its plural ("samples",
 * "batches", "GPUs"): the singular for exactly one ("sample", "batch",
 * "GPU"), else the plural as given; a unit that is no plural word ("GB/s",
 * "ms", "W") as given. Returns `plural` or buf. */
const char *format_noun(double count, const char *plural, char *buf, size_t len);
/* Rewrites in place (within cap bytes) every number of `text` written with
 * an exponent ("2.097e+06", "1e-05") as format_short writes it, with the
 * mantissa's significant digits ("2097000", "0.00001"): text from scripts
 * and messages reaches people without e-notation. Other text is kept. */
void units_plain_numbers(char *text, size_t cap);
/* A share (0.123) as a percentage with one decimal ("12.3%"). */
void format_percent(char *buf, size_t len, double share);
/* A dollar amount, unit-scaled ("$1.2 M"). */
void format_usd(char *buf, size_t len, double usd);
/* 1.2 k, 3.4 M (the UNIT_SI rows); past the last prefix a bound
 * (">999 Y"), never an exponent. */
void format_si(char *buf, size_t len, double v, const char *unit);
/* 350 us, 1.02 s, 41 min, 3.2 d, 2000 y (the UNIT_FORMAT duration rows;
 * whole years, beyond 999 k y that bound, never an exponent); "-" for
 * a negative or non-finite time (unknown, never). */
void format_duration(char *buf, size_t len, double seconds);
/* A wall clock: "01:02:03", "2d 01:02:03" (negative and non-finite: 0). */
void format_clock(char *buf, size_t len, double seconds);
/* A duration as a parseable value in the largest UNIT_PARSE unit it
 * reaches ("20m", "2h", "1.5d", "30s"), four significant digits. */
void format_duration_value(char *buf, size_t len, double seconds);

#endif
