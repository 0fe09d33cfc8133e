/* options: the interactive view's option table and what is generated from it. */
#include "options.h"

#include <string.h>

#include "roff.h"

static const struct options_entry options[] = {
    {OPT_SETUP, "--setup", "-c", "FILE|PRESET", OPT_VIEW | OPT_PLAY,
     "the setup to show (default: the 'default' preset)"},
    {OPT_SET, "--set", NULL, "PATH=VALUE", OPT_VIEW | OPT_PLAY,
     "change a setup field, as in the file (repeatable; see mlviz fields)"},
    {OPT_CATALOG, "--catalog", NULL, "DIR", OPT_VIEW | OPT_PLAY, "an extra catalog directory"},
    {OPT_TOUR, "--tour", NULL, NULL, OPT_VIEW, "start in tour mode"},
    {OPT_INFER, "--infer", NULL, NULL, OPT_VIEW | OPT_PLAY,
     "start in the inference mode (serving: prefill, decode, KV cache; key i)"},
    {OPT_FRAMES, "--frames", NULL, "N", OPT_VIEW | OPT_PLAY,
     "quit after N frames (captures, tests)"},
    {OPT_SPEED, "--speed", NULL, "X", OPT_VIEW | OPT_PLAY,
     "simulated seconds a second, at most 86400 (play keeps it)"},
    {OPT_THEME, "--theme", NULL, "NAME", OPT_VIEW | OPT_PLAY,
     "default, light (light backgrounds; automatic from COLORFGBG), basic, contrast "
     "(projectors) or mono"},
    {OPT_MONO, "--mono", "--no-color", NULL, OPT_VIEW | OPT_PLAY,
     "no colour; also automatic when NO_COLOR is set"},
    {OPT_ASCII, "--ascii", NULL, NULL, OPT_VIEW | OPT_PLAY,
     "ASCII boxes and glyphs (automatic without UTF-8)"},
    {OPT_NO_MOUSE, "--no-mouse", NULL, NULL, OPT_VIEW | OPT_PLAY,
     "leave the mouse to the terminal (text selection)"},
};
enum { N_OPTIONS = sizeof options / sizeof options[0] };

/* word is `name` or `name=value`: returns the value (or "" for none). */
static const char *matches(const char *word, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (!n || strncmp(word, name, n) != 0)
        return NULL;
    return word[n] == '\0' || word[n] == '=' ? word + n : NULL;
}

const struct options_entry *options_find(const char *word, const char **inline_value)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const char *rest = matches(word, options[i].name);
        if (!rest)
            rest = matches(word, options[i].alias);
        if (rest) {
            *inline_value = *rest == '=' ? rest + 1 : NULL;
            return &options[i];
        }
    }
    return NULL;
}

const struct options_entry *options_at(size_t i)
{
    return i < N_OPTIONS ? &options[i] : NULL;
}

void options_synopsis(FILE *out, unsigned applies)
{
    const char *sep = "";
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct options_entry *o = &options[i];
        if (!(o->applies & applies))
            continue;
        /* The short alias is the quicker to type: show it. */
        const char *shown = o->alias && o->alias[1] != '-' ? o->alias : o->name;
        fprintf(out, "%s[%s%s%s]", sep, shown, o->arg ? " " : "", o->arg ? o->arg : "");
        sep = " ";
    }
}

void options_help(FILE *out, unsigned applies)
{
    enum { NAME_W = 24 };
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct options_entry *o = &options[i];
        if (!(o->applies & applies))
            continue;
        char names[64];
        snprintf(names, sizeof names, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "",
                 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(out, "  %-*s %s%s\n", NAME_W, names, o->help,
                o->applies & OPT_PLAY ? "" : " (not in play)");
    }
}

void options_man(FILE *out)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct options_entry *o = &options[i];
        fputs(".TP\n", out);
        if (o->alias) {
            fputs("\\fB", out);
            roff_escape(out, o->alias);
            fputs("\\fR, ", out);
        }
        fputs("\\fB", out);
        roff_escape(out, o->name);
        fputs("\\fR", out);
        if (o->arg) {
            fputs(" \\fI", out);
            roff_escape(out, o->arg);
            fputs("\\fR", out);
        }
        fputc('\n', out);
        roff_escape(out, o->help);
        fputs(o->applies & OPT_PLAY ? ".\n" : " (not with \\fBplay\\fR).\n", out);
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

void options_markdown(FILE *out)
{
    fputs("| option | value | meaning |\n|---|---|---|\n", out);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct options_entry *o = &options[i];
        fprintf(out, "| `%s`", o->name);
        if (o->alias)
            fprintf(out, ", `%s`", o->alias);
        fputs(" | ", out);
        md_text(out, o->arg);
        fputs(" | ", out);
        md_text(out, o->help);
        fputs(o->applies & OPT_PLAY ? " |\n" : " (not in play) |\n", out);
    }
}
