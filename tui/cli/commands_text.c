/* commands_text: what is written from the command table: mlviz --help's
 * list, usage lines, option help, the man page's synopsis and options, the
 * markdown of docs/, README's command-line block and the test dump. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "commands.h"
#include "roff.h"

void commands_list(FILE *out)
{
    const struct commands_spec *c;
    for (size_t i = 0; (c = commands_at(i)) != NULL; i++)
        fprintf(out, "  %-11s %s\n", c->name, c->summary);
}

/* "--x", or the short alias when there is one ("-c"): the quicker to type. */
static const char *shown_name(const struct commands_option *o)
{
    return o->alias && o->alias[1] != '-' ? o->alias : o->name;
}

/* One option as the synopsis writes it: "[--x V]...". */
static void synopsis_word(const struct commands_option *o, char *buf, size_t len)
{
    char mv[512];
    commands_metavar(o, mv, sizeof mv);
    snprintf(buf, len, "[%s%s%s]%s", shown_name(o), mv[0] ? " " : "", mv,
             o->flags & COMMANDS_REPEAT ? "..." : "");
}

/* A part of a synopsis in roff, in one font ("B": option names, "I":
 * arguments), escaped. */
static void roff_words(FILE *out, const char *font, const char *text)
{
    fprintf(out, "\\f%s", font);
    /* A line may break after each '|' of a long list of choices (\:). */
    char part[512];
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "|");
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
        roff_escape(out, part);
        p += n;
        if (*p == '|') {
            fputs("|\\:", out);
            p++;
        }
    }
    fputs("\\fR", out);
}

static void man_synopsis_of(FILE *out, const struct commands_spec *c)
{
    fprintf(out, c->name[0] ? ".br\n.B mlviz %s\n" : ".B mlviz\n", c->name);
    const char *sep = "";
    if (c->positional[0]) {
        roff_words(out, "I", c->positional);
        sep = " ";
    }
    const struct commands_option *o;
    for (size_t k = 0; (o = commands_option_at(c, k)) != NULL; k++) {
        char mv[512];
        commands_metavar(o, mv, sizeof mv);
        fprintf(out, "%s[", sep);
        roff_words(out, "B", shown_name(o));
        if (mv[0]) {
            fputc(' ', out);
            roff_words(out, "I", mv);
        }
        fprintf(out, "]%s", o->flags & COMMANDS_REPEAT ? "..." : "");
        sep = " ";
    }
    if (c->tail) {
        fputs(sep, out);
        roff_escape(out, c->tail);
    }
    if (c->positional[0] || commands_option_at(c, 0) || c->tail)
        fputc('\n', out);
}

void commands_man_synopsis(FILE *out)
{
    man_synopsis_of(out, commands_find(""));
    const struct commands_spec *c;
    for (size_t i = 0; (c = commands_at(i)) != NULL; i++)
        man_synopsis_of(out, c);
}

void commands_usage(const char *name, char *buf, size_t len)
{
    const struct commands_spec *c = commands_find(name);
    int n = snprintf(buf, len, "mlviz%s%s", name && name[0] ? " " : "", name ? name : "");
    size_t used = n > 0 ? (size_t)n : 0;
    if (!c)
        return;
    if (c->positional[0] && used < len) {
        n = snprintf(buf + used, len - used, " %s", c->positional);
        used += n > 0 ? (size_t)n : 0;
    }
    const struct commands_option *o;
    for (size_t i = 0; (o = commands_option_at(c, i)) != NULL && used < len; i++) {
        char word[600];
        synopsis_word(o, word, sizeof word);
        n = snprintf(buf + used, len - used, " %s", word);
        used += n > 0 ? (size_t)n : 0;
    }
    if (c->tail && used < len)
        snprintf(buf + used, len - used, " %s", c->tail);
}

/* A usage line cut at spaces into lines of at most `width` columns, the
 * ones after the first indented under the command's first argument. */
static void wrapped_from(FILE *out, const char *line, size_t col, size_t indent, int width)
{
    size_t w = width > 20 ? (size_t)width : 20;
    for (const char *p = line; *p;) {
        /* "[--x V]..." stays on one line. */
        size_t n = 0;
        for (int depth = 0; p[n] && (depth > 0 || p[n] != ' '); n++)
            depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
        if (col > indent && col + 1 + n > w) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > 0 && p != line) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, n, out);
        col += n;
        p += n;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

static void wrapped(FILE *out, const char *line, size_t indent, int width)
{
    wrapped_from(out, line, 0, indent, width);
}

void commands_help_head(FILE *out, const char *name, int width)
{
    const struct commands_spec *c = commands_find(name);
    char usage[4096];
    commands_usage(name, usage, sizeof usage);
    fputs("usage: ", out);
    wrapped_from(out, usage, 7, 7 + strlen(c && c->name[0] ? c->name : "") + 7, width);
    if (c && c->about) {
        fputs("  ", out);
        wrapped_from(out, c->about, 2, 2, width);
    }
}

/* "-c, --setup FILE|PRESET" */
static void option_names(const struct commands_option *o, char *buf, size_t len)
{
    char mv[512];
    commands_metavar(o, mv, sizeof mv);
    snprintf(buf, len, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
             mv[0] ? " " : "", mv);
}

void commands_option_help(FILE *out, const char *name)
{
    const struct commands_spec *c = commands_find(name);
    const struct commands_option *o;
    for (size_t i = 0; (o = commands_option_at(c, i)) != NULL; i++) {
        char left[640];
        option_names(o, left, sizeof left);
        /* The help column, wrapped at 80 under itself. */
        if (strlen(left) > COMMANDS_HELP_WIDTH)
            fprintf(out, "  %s\n  %-*s ", left, COMMANDS_HELP_WIDTH, "");
        else
            fprintf(out, "  %-*s ", COMMANDS_HELP_WIDTH, left);
        wrapped_from(out, o->help, COMMANDS_HELP_WIDTH + 3, COMMANDS_HELP_WIDTH + 3, 80);
    }
}

void commands_usage_all(FILE *out, int width)
{
    char usage[4096];
    commands_usage("", usage, sizeof usage);
    wrapped(out, usage, 6, width);
    const struct commands_spec *c;
    for (size_t i = 0; (c = commands_at(i)) != NULL; i++) {
        commands_usage(c->name, usage, sizeof usage);
        wrapped(out, usage, strlen(c->name) + 7, width);
    }
}

/* The options of c as .TP entries; own_only: not the view's that a
 * VIEW_OPTIONS command takes too. */
static void man_options(FILE *out, const struct commands_spec *c, bool own_only)
{
    const struct commands_option *o;
    for (size_t i = 0; (o = commands_option_at(c, i)) != NULL; i++) {
        bool own = o >= c->options && o < c->options + COMMANDS_MAX_OPTIONS;
        if (strcmp(o->name, "--man") == 0 || (own_only && !own))
            continue;
        char mv[512];
        commands_metavar(o, mv, sizeof mv);
        fputs(".TP\n", out);
        if (o->alias) {
            roff_words(out, "B", o->alias);
            fputs(", ", out);
        }
        roff_words(out, "B", o->name);
        if (mv[0]) {
            fputc(' ', out);
            roff_words(out, "I", mv);
        }
        fputc('\n', out);
        roff_escape(out, o->help);
        fputs(o->flags & COMMANDS_VIEW_ONLY ? " (not with \\fBplay\\fR).\n" : ".\n", out);
    }
}

void commands_option_man(FILE *out, const char *name)
{
    const struct commands_spec *c = commands_find(name);
    if (c)
        man_options(out, c, false);
}

void commands_man_commands(FILE *out)
{
    const struct commands_spec *c;
    for (size_t i = 0; (c = commands_at(i)) != NULL; i++) {
        if (strcmp(c->name, "plan") == 0)
            continue;
        fprintf(out, ".SS \"mlviz %s\"\n", c->name);
        roff_escape(out, c->summary);
        fputs(".\n", out);
        if (c->about) {
            fputs(".br\n", out);
            roff_escape(out, c->about);
            fputc('\n', out);
        }
        if (c->flags & COMMANDS_VIEW_OPTIONS)
            fputs(".br\nIt takes the view's options (OPTIONS) but \\fB\\-\\-tour\\fR.\n", out);
        man_options(out, c, true);
    }
}

/* Markdown table text: a '|' would end the cell. */
static void md_text(FILE *out, const char *text)
{
    for (const char *p = text; p && *p; p++) {
        if (*p == '|')
            fputc('\\', out);
        fputc(*p, out);
    }
}

void commands_option_markdown(FILE *out, const char *name)
{
    const struct commands_spec *c = commands_find(name);
    const struct commands_option *o;
    fputs("| option | value | meaning |\n|---|---|---|\n", out);
    for (size_t i = 0; (o = commands_option_at(c, i)) != NULL; i++) {
        char mv[512];
        commands_metavar(o, mv, sizeof mv);
        fprintf(out, "| `%s`", o->name);
        if (o->alias)
            fprintf(out, ", `%s`", o->alias);
        fputs(" | ", out);
        md_text(out, mv);
        fputs(" | ", out);
        md_text(out, o->help);
        fputs(o->flags & COMMANDS_VIEW_ONLY ? " (not in play) |\n" : " |\n", out);
    }
}

/* A value the option takes and one it refuses ("-": none to give). */
static void sample_values(const struct commands_option *o, char *ok, char *bad, size_t len)
{
    const char *w[64];
    snprintf(bad, len, "-");
    switch (o->value) {
    case VALUE_NONE:
        snprintf(ok, len, "-");
        break;
    case VALUE_TEXT:
        snprintf(ok, len, "%s", o->sample ? o->sample : "x");
        break;
    case VALUE_ASSIGN:
        snprintf(ok, len, "%s", o->sample ? o->sample : "a=b");
        snprintf(bad, len, "no-equals-sign");
        break;
    case VALUE_CHOICE:
        snprintf(ok, len, "%s", commands_words(o->words, w, 64) ? w[0] : "-");
        snprintf(bad, len, "no-such-choice");
        break;
    case VALUE_COUNT:
        snprintf(ok, len, "%.0f", o->min);
        if (o->max < 1e18)
            snprintf(bad, len, "%.0f", o->max + 1);
        else
            snprintf(bad, len, "1x");
        break;
    case VALUE_NUMBER:
        snprintf(ok, len, "%.17g", o->max);
        snprintf(bad, len, "%.17g", o->flags & COMMANDS_ABOVE_MIN ? o->min : o->max * 10);
        break;
    case VALUE_DURATION:
        snprintf(ok, len, "%.17gs", o->max);
        snprintf(bad, len, "%.17gs", o->max * 10);
        break;
    case VALUE_BYTES:
        snprintf(ok, len, "%.17g", o->min);
        snprintf(bad, len, "%.17g", o->max * 10);
        break;
    }
}

static void dump_spec(FILE *out, const struct commands_spec *c)
{
    static const char *const types[] = {"switch",   "text",  "count",  "number",
                                        "duration", "bytes", "choice", "assign"};
    const struct commands_option *o;
    for (size_t i = 0; (o = commands_option_at(c, i)) != NULL; i++) {
        char ok[128], bad[128];
        sample_values(o, ok, bad, sizeof ok);
        fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\n", c->name[0] ? c->name : "-", o->name,
                o->alias ? o->alias : "-", types[o->value], ok, bad);
    }
}

void commands_table_dump(FILE *out)
{
    dump_spec(out, commands_find(""));
    const struct commands_spec *c;
    for (size_t i = 0; (c = commands_at(i)) != NULL; i++)
        dump_spec(out, c);
}
