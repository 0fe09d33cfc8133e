/* units: the table of units, and the parsers and formatters that read it. */
#include "units.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECONDS_PER_MINUTE 60.0
#define SECONDS_PER_HOUR   3600.0
#define SECONDS_PER_DAY    86400.0
#define SECONDS_PER_YEAR   (365.25 * SECONDS_PER_DAY) /* a Julian year */

#define P UNIT_PARSE
#define F UNIT_FORMAT

const struct unit units_table[] = {
    /* Durations. "m" is read as minutes; "min" is how they are written. */
    {UNIT_DURATION, "", 1.0, P, 0, 0},
    {UNIT_DURATION, "us", 1e-6, F, 1e-3, 0},
    {UNIT_DURATION, "ms", 1e-3, P | F, 1.0, 1},
    {UNIT_DURATION, "s", 1.0, P | F, 120.0, 2},
    {UNIT_DURATION, "m", SECONDS_PER_MINUTE, P, 0, 0},
    {UNIT_DURATION, "min", SECONDS_PER_MINUTE, F, 7200.0, 0},
    {UNIT_DURATION, "h", SECONDS_PER_HOUR, P | F, 2 * SECONDS_PER_DAY, 1},
    {UNIT_DURATION, "d", SECONDS_PER_DAY, P | F, 1000 * SECONDS_PER_YEAR, 1},
    {UNIT_DURATION, "y", SECONDS_PER_YEAR, F, INFINITY, -1},
    /* Byte counts: decimal and binary prefixes. */
    {UNIT_BYTES, "", 1.0, P, 0, 0},
    {UNIT_BYTES, "B", 1.0, P, 0, 0},
    {UNIT_BYTES, "KB", 1e3, P, 0, 0},
    {UNIT_BYTES, "MB", 1e6, P, 0, 0},
    {UNIT_BYTES, "GB", 1e9, P, 0, 0},
    {UNIT_BYTES, "TB", 1e12, P, 0, 0},
    {UNIT_BYTES, "KiB", 1024.0, P, 0, 0},
    {UNIT_BYTES, "MiB", 1048576.0, P, 0, 0},
    {UNIT_BYTES, "GiB", 1073741824.0, P, 0, 0},
    {UNIT_BYTES, "TiB", 1099511627776.0, P, 0, 0},
    /* SI prefixes of format_si, in increasing order. */
    {UNIT_SI, "", 1.0, F, 0, 0},
    {UNIT_SI, "k", 1e3, F, 0, 0},
    {UNIT_SI, "M", 1e6, F, 0, 0},
    {UNIT_SI, "G", 1e9, F, 0, 0},
    {UNIT_SI, "T", 1e12, F, 0, 0},
    {UNIT_SI, "P", 1e15, F, 0, 0},
    {UNIT_SI, "E", 1e18, F, 0, 0},
    {UNIT_SI, "Z", 1e21, F, 0, 0},
    {UNIT_SI, "Y", 1e24, F, 0, 0},
    /* A share of one, written with one decimal. */
    {UNIT_PERCENT, "%", 0.01, F, 0, 1},
};
const size_t units_count = sizeof units_table / sizeof units_table[0];

#undef P
#undef F

double units_scale(enum unit_kind kind, const char *symbol)
{
    for (size_t i = 0; i < units_count; i++)
        if (units_table[i].kind == kind && strcmp(units_table[i].symbol, symbol) == 0)
            return units_table[i].scale;
    return 0.0;
}

size_t units_decimal_length(const char *s)
{
    size_t i = 0;
    bool digits = false;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (isdigit((unsigned char)s[i]))
        i++, digits = true;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            digits = true;
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

bool units_parse(enum unit_kind kind, const char *text, double *out)
{
    if (!text || !*text || units_decimal_length(text) == 0)
        return false;
    char *end;
    double v = strtod(text, &end);
    if ((size_t)(end - text) != units_decimal_length(text) || !isfinite(v) || v < 0)
        return false;
    for (size_t i = 0; i < units_count; i++) {
        const struct unit *u = &units_table[i];
        if (u->kind != kind || !(u->use & UNIT_PARSE) || strcmp(end, u->symbol) != 0)
            continue;
        double scaled = v * u->scale;
        if (!isfinite(scaled) || (scaled != 0 && scaled < DBL_MIN))
            return false; /* 1e305d overflows; 1e-310 cannot be computed with */
        *out = scaled + 0.0;
        return true;
    }
    return false;
}

/* ---- numbers for output ------------------------------------------------------ */

double output_number(double v)
{
    if (!isfinite(v) || v == 0.0)
        return 0.0; /* also turns -0 into 0 */
    return v;
}

/* "-0", "-0.00": a negative number that printed as zero loses its sign. */
static void drop_negative_zero(char *buf)
{
    if (buf[0] != '-')
        return;
    for (const char *p = buf + 1; *p && *p != 'e' && *p != ' '; p++)
        if (*p >= '1' && *p <= '9')
            return;
    memmove(buf, buf + 1, strlen(buf));
}

/* Below 2^53 every integer is exact in a double. */
#define EXACT_INTEGER_LIMIT 9007199254740992.0

/* Up to here an integer is written whole when `digits` would round it
 * (a 64-bit count such as 9223372036854775807 stays whole); beyond, with
 * 17 significant digits, which read back as the same double. */
#define WHOLE_INTEGER_LIMIT 1e19

void output_format_number(char *buf, size_t len, double v, int digits)
{
    v = output_number(v);
    if (v == floor(v) && fabs(v) < EXACT_INTEGER_LIMIT) {
        snprintf(buf, len, "%.0f", v);
    } else {
        snprintf(buf, len, "%.*g", digits, v);
        /* An integer the short form rounds: exactly instead. */
        if (v == floor(v) && strtod(buf, NULL) != v)
            snprintf(buf, len, fabs(v) < WHOLE_INTEGER_LIMIT ? "%.0f" : "%.17g", v);
    }
    drop_negative_zero(buf);
}

/* What every formatter for people writes for a number nobody can know
 * (NaN, inf: a setup that cannot run); machines get 0 (output_number). */
#define FORMAT_UNKNOWN "-"

/* Beyond this, fixed notation would print a wall of digits. */
#define FIXED_NOTATION_LIMIT 1e9

void format_fixed(char *buf, size_t len, double v, int decimals)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", FORMAT_UNKNOWN);
        return;
    }
    v = output_number(v);
    if (fabs(v) >= FIXED_NOTATION_LIMIT)
        format_si(buf, len, v, ""); /* "2.50 T": people read no exponents */
    else
        snprintf(buf, len, "%.*f", decimals, v);
    drop_negative_zero(buf);
}

/* Below this a magnitude shows as zero in format_significant: its digits
 * would be a wall of zeros. */
#define SIGNIFICANT_FLOOR        1e-9
#define SIGNIFICANT_DECIMALS_MAX 9

/* Decimals that leave `digits` significant digits in a (> 0), the whole
 * part never rounded. */
static int significant_decimals(double a, int digits)
{
    int whole = (int)floor(log10(a)) + 1; /* digits before the point (<= 0 below 1) */
    int decimals = digits - whole;
    if (decimals < 0)
        return 0;
    return decimals > SIGNIFICANT_DECIMALS_MAX ? SIGNIFICANT_DECIMALS_MAX : decimals;
}

void format_significant(char *buf, size_t len, double v, int digits)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", FORMAT_UNKNOWN);
        return;
    }
    v = output_number(v);
    double a = fabs(v);
    if (digits < 1)
        digits = 1;
    if (a < SIGNIFICANT_FLOOR) {
        snprintf(buf, len, "0");
        return;
    }
    if (a >= FIXED_NOTATION_LIMIT) {
        format_fixed(buf, len, v, 0);
        return;
    }
    int decimals = significant_decimals(a, digits);
    char num[64];
    snprintf(num, sizeof num, "%.*f", decimals, a);
    /* 9.96 to two digits rounds up to "10.0": one decimal fewer. */
    if (decimals > 0 && significant_decimals(strtod(num, NULL), digits) < decimals)
        decimals--;
    snprintf(buf, len, "%.*f", decimals, v);
    drop_negative_zero(buf);
}

void format_short(char *buf, size_t len, double v, int digits)
{
    format_significant(buf, len, v, digits);
    /* Only the number's own decimals: "2.50 T" has its digits before the space. */
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = dot + strcspn(dot, " ");
    char *cut = end;
    while (cut > dot + 1 && cut[-1] == '0')
        cut--;
    if (cut == dot + 1)
        cut = dot;
    memmove(cut, end, strlen(end) + 1);
}

const char *format_noun(double count, const char *plural, char *buf, size_t len)
{
    size_t n = strlen(plural);
    if (count != 1 || n < 3 || plural[n - 1] != 's' || plural[n - 2] == 's' || len == 0)
        return plural;
    for (size_t i = 0; i < n; i++)
        if (!isalpha((unsigned char)plural[i]) && plural[i] != '-')
            return plural; /* "GB/s", "tokens/s": units, not words */
    /* "batches", "boxes": -es after ch, sh, x; else -s ("samples"). */
    size_t cut = 1;
    if (n > 4 && plural[n - 2] == 'e' &&
        ((plural[n - 3] == 'h' && (plural[n - 4] == 'c' || plural[n - 4] == 's')) ||
         plural[n - 3] == 'x'))
        cut = 2;
    snprintf(buf, len, "%.*s", (int)(n - cut), plural);
    return buf;
}

/* The significant digits of a mantissa ("2.097" 4, "0.05" 1), at most 6. */
static int mantissa_digits(const char *s, size_t n)
{
    int digits = 0;
    bool leading = true;
    for (size_t i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (!isdigit((unsigned char)s[i]) || (leading && s[i] == '0'))
            continue;
        leading = false;
        digits++;
    }
    return digits < 1 ? 1 : digits > 6 ? 6 : digits;
}

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

void units_plain_numbers(char *text, size_t cap)
{
    if (!text || cap == 0 || !strpbrk(text, "eE"))
        return;
    char *out = malloc(cap);
    if (!out)
        return;
    size_t o = 0;
    for (size_t i = 0; text[i] && o + 1 < cap;) {
        /* A number starts a word, or follows a range's "..". */
        bool starts = i == 0 || !word_char(text[i - 1]) ||
                      (i >= 2 && text[i - 1] == '.' && text[i - 2] == '.');
        size_t n = isdigit((unsigned char)text[i]) && starts ? units_decimal_length(text + i) : 0;
        size_t e = strcspn(text + i, "eE");
        if (n > 0 && e < n && !word_char(text[i + n])) {
            char num[64];
            format_short(num, sizeof num, strtod(text + i, NULL), mantissa_digits(text + i, n));
            for (size_t k = 0; num[k] && o + 1 < cap; k++)
                out[o++] = num[k];
            i += n;
        } else {
            out[o++] = text[i++];
        }
    }
    out[o] = '\0';
    memcpy(text, out, o + 1);
    free(out);
}

/* The row of `symbol` among the rows of `kind`. */
static const struct unit *unit_row(enum unit_kind kind, const char *symbol)
{
    for (size_t i = 0; i < units_count; i++)
        if (units_table[i].kind == kind && strcmp(units_table[i].symbol, symbol) == 0)
            return &units_table[i];
    return NULL;
}

void format_percent(char *buf, size_t len, double share)
{
    const struct unit *u = unit_row(UNIT_PERCENT, "%");
    char num[40];
    if (!isfinite(share)) {
        snprintf(buf, len, "%s%s", FORMAT_UNKNOWN, u->symbol);
        return;
    }
    format_fixed(num, sizeof num, output_number(share) / u->scale, u->decimals);
    snprintf(buf, len, "%s%s", num, u->symbol);
}

void format_usd(char *buf, size_t len, double usd)
{
    char num[40];
    format_si(num, sizeof num, usd, "");
    if (!isfinite(usd))
        snprintf(buf, len, "$%s", num);
    else if (num[0] == '-')
        snprintf(buf, len, "-$%s", num + 1);
    else
        snprintf(buf, len, "$%s", num);
}

void format_si(char *buf, size_t len, double v, const char *unit)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s%s%s", FORMAT_UNKNOWN, *unit ? " " : "", unit);
        return;
    }
    v = output_number(v);
    /* Step up the prefixes (in order in the table) while the number is
     * 1000 of them or more. */
    const struct unit *prefix = NULL;
    double a = fabs(v), x = v;
    for (size_t i = 0; i < units_count; i++) {
        const struct unit *u = &units_table[i];
        if (u->kind != UNIT_SI)
            continue;
        if (prefix) {
            double step = u->scale / prefix->scale;
            if (!(a >= step))
                break;
            a /= step;
            x /= step;
        }
        prefix = u;
    }
    if (a >= 1000.0) /* past the last prefix: a bound, never a wall of digits */
        snprintf(buf, len, "%s999 %s%s", v < 0 ? "<-" : ">", prefix->symbol, unit);
    else if (a >= 100 || a == 0)
        snprintf(buf, len, "%.0f %s%s", x, prefix->symbol, unit);
    else if (a >= 10)
        snprintf(buf, len, "%.1f %s%s", x, prefix->symbol, unit);
    else
        snprintf(buf, len, "%.2f %s%s", x, prefix->symbol, unit);
    drop_negative_zero(buf);
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ' ')
        buf[n - 1] = '\0'; /* no prefix and no unit: "12", not "12 " */
}

/* Durations of more than 999 thousand of the last row's unit (years)
 * read as that bound. */
#define DURATION_SI_LIMIT 999.5e3

void format_duration(char *buf, size_t len, double t)
{
    if (!isfinite(t) || t < 0) { /* unknown or never: no duration to show */
        snprintf(buf, len, "%s", FORMAT_UNKNOWN);
        return;
    }
    t = output_number(t); /* -0 -> 0 */
    for (size_t i = 0; i < units_count; i++) {
        const struct unit *u = &units_table[i];
        if (u->kind != UNIT_DURATION || !(u->use & UNIT_FORMAT) || !(t < u->below_s))
            continue;
        if (u->decimals < 0 && t / u->scale >= DURATION_SI_LIMIT)
            snprintf(buf, len, ">999 k %s", u->symbol); /* as good as never */
        else if (u->decimals < 0) {
            char num[32];
            format_significant(num, sizeof num, t / u->scale, 3); /* "2000 y" */
            snprintf(buf, len, "%s %s", num, u->symbol);
        } else
            snprintf(buf, len, "%.*f %s", u->decimals, t / u->scale, u->symbol);
        return;
    }
    format_si(buf, len, t, "s"); /* not reached: the last row has no limit */
}

/* A clock past this many seconds (about 31,700 years) stops: long
 * holds it on every platform and the days stay a short number. */
#define CLOCK_MAX_S 1e12

void format_clock(char *buf, size_t len, double seconds)
{
    if (!isfinite(seconds) || seconds < 0)
        seconds = 0;
    if (seconds > CLOCK_MAX_S)
        seconds = CLOCK_MAX_S;
    long long day = (long long)units_scale(UNIT_DURATION, "d");
    long long hour = (long long)units_scale(UNIT_DURATION, "h");
    long long minute = (long long)units_scale(UNIT_DURATION, "m");
    long long s = (long long)seconds;
    long long d = s / day;
    s %= day;
    if (d > 0)
        snprintf(buf, len, "%lldd %02lld:%02lld:%02lld", d, s / hour, s % hour / minute,
                 s % minute);
    else
        snprintf(buf, len, "%02lld:%02lld:%02lld", s / hour, s % hour / minute, s % minute);
}

void format_duration_value(char *buf, size_t len, double seconds)
{
    const struct unit *best = unit_row(UNIT_DURATION, "s");
    for (size_t i = 0; i < units_count; i++) {
        const struct unit *u = &units_table[i];
        if (u->kind == UNIT_DURATION && (u->use & UNIT_PARSE) && u->symbol[0] && u->scale >= 1.0 &&
            seconds >= u->scale && u->scale > best->scale)
            best = u;
    }
    snprintf(buf, len, "%.4g%s", seconds / best->scale, best->symbol);
}
