/* parse: every command's argv, parsed by walking its row of the command
 * table (commands.c): option names and aliases, "--x V" and "--x=V", the
 * value's type, range and choices, "--" and -h/--help. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "fields.h"

void cli_print_help(const char *command)
{
    commands_help_head(stdout, command, 80);
    commands_option_help(stdout, command);
}

/* "a, b or c" of a choice's words. */
static void choice_list(const char *const *w, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? " or "
                                      : ", ",
                         w[i]);
        used += k > 0 ? (size_t)k : 0;
    }
}

static bool check_choice(const struct commands_option *o, const char *v)
{
    const char *w[64];
    size_t n = commands_words(o->words, w, 64);
    for (size_t i = 0; i < n; i++)
        if (strcmp(v, w[i]) == 0)
            return true;
    char all[1024];
    choice_list(w, n, all, sizeof all);
    const char *near = fields_suggest_word(v, w, n);
    cli_error("%s must be %s (got '%s')%s%s%s", o->name, all, v, near ? "; did you mean '" : "",
              near ? near : "", near ? "'?" : "");
    return false;
}

/* A whole number: digits only (strtoull skips spaces and takes a sign). */
static bool check_count(const struct commands_option *o, const char *v)
{
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    bool digits = v[0] >= '0' && v[0] <= '9';
    if (digits && !*end && errno != ERANGE && (double)n >= o->min && (double)n <= o->max)
        return true;
    cli_error("%s must be a whole number from %.0f to %.*g (got '%s')", o->name, o->min,
              o->max < 1e15 ? 15 : 6, o->max, v);
    return false;
}

/* A bound as a plain decimal, never in e+/e- form (1e9 -> 1000000000,
 * 1e-6 -> 0.000001): nine decimals at most, trailing zeros dropped. */
static void plain_number(char *buf, size_t len, double x)
{
    snprintf(buf, len, "%.9f", x);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf);
    while (end > dot + 1 && end[-1] == '0')
        *--end = '\0';
    if (end == dot + 1)
        *dot = '\0';
}

static bool check_measure(const struct commands_option *o, const char *v)
{
    if ((o->flags & COMMANDS_AUTO) && strcmp(v, "auto") == 0)
        return true;
    double x = 0;
    bool read = o->value == VALUE_NUMBER     ? fields_parse_number(v, &x)
                : o->value == VALUE_DURATION ? fields_parse_duration(v, &x)
                                             : fields_parse_bytes(v, &x);
    bool above = (o->flags & COMMANDS_ABOVE_MIN) != 0;
    if (read && isfinite(x) && (above ? x > o->min : x >= o->min) && x <= o->max)
        return true;
    const char *what = o->value == VALUE_NUMBER     ? "a number"
                       : o->value == VALUE_DURATION ? "a time such as 90s, 15m, 6h or 2d,"
                                                    : "a size such as 1GiB, 64MB or 4096,";
    const char *unit = o->value == VALUE_DURATION ? " s" : o->value == VALUE_BYTES ? " bytes" : "";
    char lo[64], hi[64];
    plain_number(lo, sizeof lo, o->min);
    plain_number(hi, sizeof hi, o->max);
    cli_error("%s must be %s%s %s %s%s and at most %s%s (got '%s')", o->name,
              o->flags & COMMANDS_AUTO ? "auto or " : "", what, above ? "above" : "from", lo, unit,
              hi, unit, v);
    return false;
}

/* The value of option o, checked by its type; false with the message printed. */
static bool check_value(const struct commands_option *o, const char *v)
{
    if (!v[0]) {
        cli_error("%s needs a value (got an empty one)", o->name);
        return false;
    }
    switch (o->value) {
    case VALUE_COUNT:
        return check_count(o, v);
    case VALUE_NUMBER:
    case VALUE_DURATION:
    case VALUE_BYTES:
        return check_measure(o, v);
    case VALUE_CHOICE:
        return check_choice(o, v);
    case VALUE_ASSIGN: {
        const char *eq = strchr(v, '=');
        if (eq && eq > v)
            return true;
        cli_error("%s takes %s, such as %s %s (got '%s')", o->name, o->metavar, o->name,
                  o->sample ? o->sample : "a=b", v);
        return false;
    }
    default:
        return true;
    }
}

/* One option at argv[*i]: 1 taken (handed on), 0 not an option of the
 * table, -1 refused (printed). */
static int take(const struct commands_spec *c, const char *usage, int argc, char **argv, int *i,
                cli_option_fn on_option, void *ctx)
{
    const char *word = argv[*i];
    const struct commands_option *o = commands_option_find(c, word);
    if (!o)
        return 0;
    if (c->name[0] && (o->flags & COMMANDS_VIEW_ONLY)) {
        cli_error("%s does not apply to mlviz %s (usage: %s)", o->name, c->name, usage);
        return -1;
    }
    const char *eq = strchr(word, '='), *v = NULL;
    if (o->value == VALUE_NONE) {
        if (eq) {
            cli_error("%s takes no value (got '%s')", o->name, word);
            return -1;
        }
    } else if (eq) {
        v = eq + 1;
    } else if (*i + 1 < argc) {
        v = argv[++*i];
    } else {
        cli_error("%s needs a value (usage: %s)", o->name, usage);
        return -1;
    }
    if (v && !check_value(o, v))
        return -1;
    if (on_option(ctx, o->name, v) < 0)
        return -1;
    return 1;
}

/* "unknown option '--x'", with the nearest name the command takes. */
static void unknown_option(const struct commands_spec *c, const char *word, const char *usage)
{
    const char *names[2 * COMMANDS_MAX_OPTIONS + 2];
    const struct commands_option *o;
    size_t n = 0;
    for (size_t i = 0; n < sizeof names / sizeof names[0] && (o = commands_option_at(c, i)); i++)
        names[n++] = o->name;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(word, "="), word);
    const char *near = fields_suggest_word(name, names, n);
    cli_error("unknown option '%s'%s%s%s (usage: %s)", word, near ? "; did you mean '" : "",
              near ? near : "", near ? "'?" : "", usage);
}

int cli_parse_words(const char *command, int argc, char **argv, cli_option_fn on_option,
                    cli_word_fn on_word, void *ctx)
{
    const struct commands_spec *c = commands_find(command);
    if (!c)
        return CLI_PARSE_ERROR;
    char usage[4096];
    commands_usage(command, usage, sizeof usage);
    bool ended = false; /* after "--" every word is an argument (POSIX guideline 10) */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!ended && strcmp(a, "--") == 0) {
            ended = true;
            if ((c->flags & COMMANDS_SCRIPT_WORDS) && on_word(ctx, a, false) < 0)
                return CLI_PARSE_ERROR;
            continue;
        }
        if (!ended && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            if (c->flags & COMMANDS_OWN_HELP) {
                if (on_option(ctx, "--help", NULL) < 0)
                    return CLI_PARSE_ERROR;
                continue;
            }
            cli_print_help(command);
            return CLI_PARSE_HELP;
        }
        int k = ended ? 0 : take(c, usage, argc, argv, &i, on_option, ctx);
        if (k < 0)
            return CLI_PARSE_ERROR;
        if (k > 0)
            continue;
        if (!ended && a[0] == '-' && a[1] && !(c->flags & COMMANDS_SCRIPT_WORDS)) {
            unknown_option(c, a, usage);
            return CLI_PARSE_ERROR;
        }
        if (on_word(ctx, a, ended) < 0)
            return CLI_PARSE_ERROR;
    }
    return 0;
}

/* cli_parse's positionals. */
struct positionals {
    cli_option_fn on_option;
    void *ctx;
    const char **pos;
    int n, max;
    const char *command;
};

static int pass_option(void *ctx, const char *name, const char *value)
{
    struct positionals *p = ctx;
    return p->on_option(p->ctx, name, value);
}

static int keep_word(void *ctx, const char *word, bool ended)
{
    (void)ended;
    struct positionals *p = ctx;
    if (p->n >= p->max) {
        char usage[4096];
        commands_usage(p->command, usage, sizeof usage);
        cli_error("unexpected argument '%s' (usage: %s)", word, usage);
        return -1;
    }
    p->pos[p->n++] = word;
    return 0;
}

int cli_parse(const char *command, int argc, char **argv, cli_option_fn on_option, void *ctx,
              const char **pos, int max_pos)
{
    struct positionals p = {on_option, ctx, pos, 0, max_pos, command};
    int rc = cli_parse_words(command, argc, argv, pass_option, keep_word, &p);
    return rc < 0 ? rc : p.n;
}

int cli_parse_exit(int parsed)
{
    return parsed == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
}

int cli_common_only(void *ctx, const char *name, const char *value)
{
    return cli_common_apply(ctx, name, value) > 0 ? 0 : cli_unhandled(name);
}

int cli_unhandled(const char *name)
{
    cli_error("internal: the option %s of the command table has no handler", name);
    return -1;
}
