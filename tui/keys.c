/* keys: the key-binding table and what is generated from it. */
#include "keys.h"

#include "roff.h"

#include <curses.h>
#include <string.h>

enum { KEY_ESCAPE = 27, KEY_TAB = '\t', KEY_NEWLINE = '\n', KEY_RETURN = '\r', KEY_DEL = 127 };

/* Order matters twice: the footer shows hints in this order, and for the
 * same key a binding limited to fewer contexts is preferred (see lookup). */
static const struct key_binding bindings[] = {
    {'1', '5', "1-5", ACT_OPEN, 0, KEYCTX_OVERVIEW | KEYCTX_STAGE, "stage",
     "open a stage view (1 Data ... 5 Infrastructure)"},
    {KEY_LEFT, 0, "Left", ACT_SELECT, DIR_LEFT, KEYCTX_OVERVIEW, NULL, "move the selection between stage boxes"},
    {KEY_RIGHT, 0, "Right", ACT_SELECT, DIR_RIGHT, KEYCTX_OVERVIEW, NULL, "move the selection between stage boxes"},
    {KEY_UP, 0, "Up", ACT_SELECT, DIR_UP, KEYCTX_OVERVIEW, NULL, "move the selection between stage boxes"},
    {KEY_DOWN, 0, "Down", ACT_SELECT, DIR_DOWN, KEYCTX_OVERVIEW, NULL, "move the selection between stage boxes"},
    {KEY_NEWLINE, 0, "Enter", ACT_ENTER, 0, KEYCTX_OVERVIEW, "open", "open the selected stage box"},
    {KEY_RETURN, 0, "Enter", ACT_ENTER, 0, KEYCTX_OVERVIEW, NULL, "open the selected stage box"},
    {KEY_ENTER, 0, "KP-Enter", ACT_ENTER, 0, KEYCTX_OVERVIEW, NULL, "open the selected stage box"},
    {KEY_ESCAPE, 0, "Esc", ACT_BACK, 0, KEYCTX_STAGE, "back", "back to the overview"},
    {KEY_BACKSPACE, 0, "Backspace", ACT_BACK, 0, KEYCTX_STAGE, NULL, "back to the overview"},
    {KEY_DEL, 0, "Del", ACT_BACK, 0, KEYCTX_STAGE, NULL, "back to the overview"},
    {KEY_TAB, 0, "Tab", ACT_KNOB_NEXT, 0, KEYCTX_STAGE, "knob", "select the next knob"},
    {KEY_DOWN, 0, "Down", ACT_KNOB_NEXT, 0, KEYCTX_STAGE, NULL, "select the next knob"},
    {KEY_BTAB, 0, "Shift-Tab", ACT_KNOB_PREV, 0, KEYCTX_STAGE, NULL, "select the previous knob"},
    {KEY_UP, 0, "Up", ACT_KNOB_PREV, 0, KEYCTX_STAGE, NULL, "select the previous knob"},
    {KEY_RIGHT, 0, "Right", ACT_KNOB_INC, 0, KEYCTX_STAGE, "change", "raise the knob / next choice"},
    {'+', 0, "+", ACT_KNOB_INC, 0, KEYCTX_STAGE, NULL, "raise the knob / next choice"},
    {'=', 0, "=", ACT_KNOB_INC, 0, KEYCTX_STAGE, NULL, "raise the knob / next choice"},
    {KEY_LEFT, 0, "Left", ACT_KNOB_DEC, 0, KEYCTX_STAGE, NULL, "lower the knob / previous choice"},
    {'-', 0, "-", ACT_KNOB_DEC, 0, KEYCTX_STAGE, NULL, "lower the knob / previous choice"},
    {'a', 0, "a", ACT_KNOB_AUTO, 0, KEYCTX_STAGE, NULL, "set the knob to auto (where it has one)"},
    {KEY_NPAGE, 0, "PgDn", ACT_TEXT_DOWN, 0, KEYCTX_STAGE, NULL,
     "scroll the explanation (also the wheel over it)"},
    {KEY_PPAGE, 0, "PgUp", ACT_TEXT_UP, 0, KEYCTX_STAGE, NULL, "scroll the explanation back"},
    {KEY_HOME, 0, "Home", ACT_TEXT_UP, -1, KEYCTX_STAGE, NULL, "the start of the explanation"},
    {KEY_END, 0, "End", ACT_TEXT_DOWN, -1, KEYCTX_STAGE, NULL, "the end of the explanation"},
    {'e', 0, "e", ACT_TEXT_FULL, 0, KEYCTX_STAGE, "explain", "the explanation full screen (e or Esc: back)"},
    {'n', 0, "n", ACT_TOUR_NEXT, 0, KEYCTX_TOUR, "next", "tour: next stop"},
    {KEY_RIGHT, 0, "Right", ACT_TOUR_NEXT, 0, KEYCTX_TOUR, NULL, "tour: next stop"},
    {KEY_NEWLINE, 0, "Enter", ACT_TOUR_NEXT, 0, KEYCTX_TOUR, NULL, "tour: next stop"},
    {'b', 0, "b", ACT_TOUR_PREV, 0, KEYCTX_TOUR, "back",
     "tour: previous stop; play: back to the previous pause"},
    {'p', 0, "p", ACT_TOUR_PREV, 0, KEYCTX_TOUR, NULL,
     "tour: previous stop; play: back to the previous pause"},
    {KEY_LEFT, 0, "Left", ACT_TOUR_PREV, 0, KEYCTX_TOUR, NULL,
     "tour: previous stop; play: back to the previous pause"},
    {KEY_PPAGE, 0, "PgUp", ACT_CAPTION_BACK, 0, KEYCTX_TOUR, NULL,
     "play: scroll the narration back (also the wheel over it)"},
    {KEY_NPAGE, 0, "PgDn", ACT_CAPTION_ON, 0, KEYCTX_TOUR, NULL,
     "play: scroll the narration forward"},
    {KEY_ESCAPE, 0, "Esc", ACT_TOUR, 0, KEYCTX_TOUR, "end tour", "end the tour"},
    {'o', 0, "o", ACT_PARAMS, 0, KEYCTX_TOUR | KEYCTX_PARAMS, "params",
     "play: show the scenario's parameters, to change them and restart"},
    {KEY_UP, 0, "Up", ACT_PARAM_SEL, -1, KEYCTX_PARAMS, NULL, "select the previous parameter"},
    {KEY_DOWN, 0, "Down", ACT_PARAM_SEL, 1, KEYCTX_PARAMS, NULL, "select the next parameter"},
    {KEY_TAB, 0, "Tab", ACT_PARAM_SEL, 1, KEYCTX_PARAMS, NULL, "select the next parameter"},
    {KEY_RIGHT, 0, "Right", ACT_PARAM_CHANGE, 1, KEYCTX_PARAMS, NULL, "raise the parameter"},
    {'+', 0, "+", ACT_PARAM_CHANGE, 1, KEYCTX_PARAMS, NULL, "raise the parameter"},
    {KEY_LEFT, 0, "Left", ACT_PARAM_CHANGE, -1, KEYCTX_PARAMS, NULL, "lower the parameter"},
    {'-', 0, "-", ACT_PARAM_CHANGE, -1, KEYCTX_PARAMS, NULL, "lower the parameter"},
    {KEY_NEWLINE, 0, "Enter", ACT_PARAM_APPLY, 0, KEYCTX_PARAMS, NULL,
     "restart the scenario with these values"},
    {KEY_RETURN, 0, "Enter", ACT_PARAM_APPLY, 0, KEYCTX_PARAMS, NULL,
     "restart the scenario with these values"},
    {KEY_ESCAPE, 0, "Esc", ACT_PARAMS, 0, KEYCTX_PARAMS, NULL, "close the parameters"},
    {'p', 0, "p", ACT_PLAN, 0, KEYCTX_OVERVIEW | KEYCTX_STAGE, "plan",
     "plan: search layouts for the fastest (ranked list, Pareto front)"},
    {KEY_UP, 0, "Up", ACT_PLAN_ROW, -1, KEYCTX_PLAN, NULL, "select the previous ranked row"},
    {KEY_DOWN, 0, "Down", ACT_PLAN_ROW, 1, KEYCTX_PLAN, "row", "select the next ranked row"},
    {KEY_NEWLINE, 0, "Enter", ACT_PLAN_LOAD, 0, KEYCTX_PLAN, "load",
     "load the selected configuration into the live view"},
    {KEY_RETURN, 0, "Enter", ACT_PLAN_LOAD, 0, KEYCTX_PLAN, NULL,
     "load the selected configuration into the live view"},
    {KEY_ESCAPE, 0, "Esc", ACT_BACK, 0, KEYCTX_PLAN, "back", "back to the overview (the search goes on)"},
    {'p', 0, "p", ACT_BACK, 0, KEYCTX_PLAN, NULL, "back to the overview (the search goes on)"},
    {' ', 0, "space", ACT_PAUSE, 0, KEYCTX_ALL, "pause", "pause or resume the simulation"},
    {'.', 0, ".", ACT_STEP, 0, KEYCTX_ALL, NULL, "when paused: advance one training step"},
    {'+', 0, "+", ACT_FASTER, 0, KEYCTX_OVERVIEW | KEYCTX_TOUR, "speed", "simulate faster"},
    {'-', 0, "-", ACT_SLOWER, 0, KEYCTX_OVERVIEW | KEYCTX_TOUR, NULL, "simulate slower"},
    {']', 0, "]", ACT_FASTER, 0, KEYCTX_ALL, NULL, "simulate faster (also in stage views)"},
    {'[', 0, "[", ACT_SLOWER, 0, KEYCTX_ALL, NULL, "simulate slower (also in stage views)"},
    {'r', 0, "r", ACT_RESET, 0, KEYCTX_ALL, "reset", "restart the simulation from the setup"},
    {'t', 0, "t", ACT_TOUR, 0, KEYCTX_OVERVIEW | KEYCTX_STAGE | KEYCTX_TOUR, "tour",
     "start or stop the guided tour of the five stages"},
    {'c', 0, "c", ACT_THEME, 0, KEYCTX_ALL, NULL, "cycle the colour theme (default, light, contrast, mono)"},
    {'u', 0, "u", ACT_UNDO, 0, KEYCTX_ALL, NULL, "undo the last knob change"},
    {'w', 0, "w", ACT_WRITE, 0, KEYCTX_ALL, NULL,
     "write the setup as YAML to a new file here (mlviz-setup.yaml, -2, ...)"},
    {'?', 0, "?", ACT_HELP, 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PLAN, "help", "show or hide this help"},
    {KEY_F(1), 0, "F1", ACT_HELP, 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PLAN, NULL, "show or hide this help"},
    {'h', 0, "h", ACT_HELP, 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PLAN, NULL, "show or hide this help"},
    {KEY_ESCAPE, 0, "Esc", ACT_HELP, 0, KEYCTX_HELP, NULL, "close the help"},
    {KEY_DOWN, 0, "Down", ACT_HELP_SCROLL, 1, KEYCTX_HELP, NULL, "scroll the help"},
    {KEY_UP, 0, "Up", ACT_HELP_SCROLL, -1, KEYCTX_HELP, NULL, "scroll the help"},
    {KEY_NPAGE, 0, "PgDn", ACT_HELP_SCROLL, 10, KEYCTX_HELP, NULL, "scroll the help"},
    {KEY_PPAGE, 0, "PgUp", ACT_HELP_SCROLL, -10, KEYCTX_HELP, NULL, "scroll the help"},
    {'q', 0, "q", ACT_QUIT, 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PARAMS | KEYCTX_PLAN, "quit", "quit mlviz"},
    {'Q', 0, "Q", ACT_QUIT, 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PARAMS | KEYCTX_PLAN, NULL, "quit mlviz"},
    {KEY_F(10), 0, "F10", ACT_QUIT, 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PARAMS | KEYCTX_PLAN, NULL, "quit mlviz"},
};

enum { N_BINDINGS = sizeof bindings / sizeof bindings[0] };

size_t keys_count(void)
{
    return N_BINDINGS;
}

const struct key_binding *keys_get(size_t i)
{
    return i < N_BINDINGS ? &bindings[i] : NULL;
}

static int popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

enum key_action keys_lookup(int key, unsigned context, int *arg)
{
    const struct key_binding *best = NULL;
    for (size_t i = 0; i < N_BINDINGS; i++) {
        const struct key_binding *b = &bindings[i];
        if (!(b->contexts & context))
            continue;
        bool hit = b->key_last ? key >= b->key && key <= b->key_last : key == b->key;
        if (!hit)
            continue;
        if (!best || popcount(b->contexts) < popcount(best->contexts))
            best = b;
    }
    if (!best)
        return ACT_NONE;
    if (arg)
        *arg = best->arg + (best->key_last ? key - best->key : 0);
    return best->action;
}

size_t keys_footer(unsigned context, const struct key_binding **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < N_BINDINGS && n < max; i++)
        if (bindings[i].hint && (bindings[i].contexts & context))
            out[n++] = &bindings[i];
    return n;
}

static const unsigned context_order[] = {KEYCTX_OVERVIEW, KEYCTX_STAGE, KEYCTX_TOUR,
                                         KEYCTX_HELP, KEYCTX_PARAMS, KEYCTX_PLAN};

const char *keys_context_name(unsigned context)
{
    switch (context) {
    case KEYCTX_OVERVIEW: return "Overview";
    case KEYCTX_STAGE: return "Stage views";
    case KEYCTX_TOUR: return "Tour and played scenarios";
    case KEYCTX_HELP: return "Help";
    case KEYCTX_PARAMS: return "Scenario parameters (mlviz play)";
    case KEYCTX_PLAN: return "Plan screen";
    default: return "Everywhere";
    }
}

/* A binding is listed once: under "Everywhere" when it applies to all main
 * contexts, else under the first context it belongs to. */
static unsigned home_context(const struct key_binding *b)
{
    if ((b->contexts & KEYCTX_ALL) == KEYCTX_ALL)
        return KEYCTX_ALL;
    for (size_t c = 0; c < sizeof context_order / sizeof context_order[0]; c++)
        if (b->contexts & context_order[c])
            return context_order[c];
    return KEYCTX_ALL;
}

static const unsigned help_sections[] = {KEYCTX_ALL, KEYCTX_OVERVIEW, KEYCTX_STAGE, KEYCTX_TOUR,
                                         KEYCTX_HELP, KEYCTX_PARAMS, KEYCTX_PLAN};

static bool same_entry(const struct key_binding *a, const struct key_binding *b)
{
    return home_context(a) == home_context(b) && a->action == b->action &&
           strcmp(a->help, b->help) == 0;
}

/* Bindings that do the same thing in the same place share one line:
 * "Enter/Return/KP-Enter  open the selected stage box". */
static void merged_label(size_t i, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = i; j < N_BINDINGS; j++) {
        if (!same_entry(&bindings[i], &bindings[j]))
            continue;
        bool dup = false; /* two codes for one key ("Enter") are listed once */
        for (size_t k = i; k < j; k++)
            dup = dup || (same_entry(&bindings[i], &bindings[k]) &&
                          strcmp(bindings[k].label, bindings[j].label) == 0);
        if (dup)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "/" : "", bindings[j].label);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

static bool merged_earlier(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (same_entry(&bindings[i], &bindings[j]))
            return true;
    return false;
}

/* What the mouse does, for the help overlay, the man page and the docs. */
static const char mouse_help[] = "Mouse: click a stage box to open it, click a knob to select it, "
                                 "wheel or click </> to change it, click \"back\" to return.";

size_t keys_help_text(char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
#define EMIT(...)                                                                                 \
    do {                                                                                          \
        if (used < len) {                                                                         \
            int w_ = snprintf(buf + used, len - used, __VA_ARGS__);                               \
            if (w_ > 0)                                                                           \
                used += (size_t)w_ < len - used ? (size_t)w_ : len - used - 1;                    \
        }                                                                                         \
    } while (0)
    for (size_t s = 0; s < sizeof help_sections / sizeof help_sections[0]; s++) {
        unsigned sec = help_sections[s];
        EMIT("%s:\n", keys_context_name(sec));
        for (size_t i = 0; i < N_BINDINGS; i++) {
            if (home_context(&bindings[i]) != sec || merged_earlier(i))
                continue;
            char label[64];
            merged_label(i, label, sizeof label);
            EMIT("  %-*s %s\n", KEYS_LABEL_W, label, bindings[i].help);
        }
    }
    EMIT("%s\n", mouse_help);
#undef EMIT
    return used;
}

void keys_write_man(FILE *out)
{
    for (size_t s = 0; s < sizeof help_sections / sizeof help_sections[0]; s++) {
        unsigned sec = help_sections[s];
        fprintf(out, ".SS %s\n", keys_context_name(sec));
        for (size_t i = 0; i < N_BINDINGS; i++) {
            if (home_context(&bindings[i]) != sec || merged_earlier(i))
                continue;
            char label[64];
            merged_label(i, label, sizeof label);
            fputs(".TP\n.B ", out);
            roff_escape(out, label);
            fputc('\n', out);
            roff_escape(out, bindings[i].help);
            fputc('\n', out);
        }
    }
}

void keys_write_md(FILE *out)
{
    for (size_t s = 0; s < sizeof help_sections / sizeof help_sections[0]; s++) {
        unsigned sec = help_sections[s];
        fprintf(out, "%s**%s**\n\n| Key | What it does |\n| --- | --- |\n", s ? "\n" : "",
                keys_context_name(sec));
        for (size_t i = 0; i < N_BINDINGS; i++) {
            if (home_context(&bindings[i]) != sec || merged_earlier(i))
                continue;
            char label[64];
            merged_label(i, label, sizeof label);
            fprintf(out, "| `%s` | %s |\n", label, bindings[i].help);
        }
    }
    fprintf(out, "\n%s\n", mouse_help);
}
