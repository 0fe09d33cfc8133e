/* keys: the key-binding table and what is generated from it. */
#include "keys.h"

#include "roff.h"

#include <curses.h>
#include <string.h>

enum { KEY_ESCAPE = 27, KEY_TAB = '\t', KEY_NEWLINE = '\n', KEY_RETURN = '\r', KEY_DEL = 127 };

/* What a key can do: an action and its one line of help (the help overlay,
 * the man page, docs/TUI.md). Each is written once; bindings refer to them. */
enum key_cmd {
    CMD_OPEN,
    CMD_SELECT,
    CMD_ENTER,
    CMD_BACK,
    CMD_KNOB_NEXT,
    CMD_KNOB_PREV,
    CMD_KNOB_INC,
    CMD_KNOB_DEC,
    CMD_KNOB_AUTO,
    CMD_TEXT_DOWN,
    CMD_TEXT_UP,
    CMD_TEXT_START,
    CMD_TEXT_END,
    CMD_TEXT_FULL,
    CMD_TOUR_NEXT,
    CMD_TOUR_PREV,
    CMD_CAPTION_BACK,
    CMD_CAPTION_ON,
    CMD_TOUR_END,
    CMD_PARAMS,
    CMD_PARAM_PREV,
    CMD_PARAM_NEXT,
    CMD_PARAM_INC,
    CMD_PARAM_DEC,
    CMD_PARAM_APPLY,
    CMD_PARAMS_CLOSE,
    CMD_PLAN,
    CMD_PLAN_PREV,
    CMD_PLAN_NEXT,
    CMD_PLAN_LOAD,
    CMD_PLAN_BACK,
    CMD_INFER,
    CMD_PAUSE,
    CMD_STEP,
    CMD_FASTER,
    CMD_SLOWER,
    CMD_FASTER_ALL,
    CMD_SLOWER_ALL,
    CMD_RESET,
    CMD_TOUR,
    CMD_THEME,
    CMD_UNDO,
    CMD_WRITE,
    CMD_HELP,
    CMD_HELP_CLOSE,
    CMD_HELP_SCROLL,
    CMD_QUIT,
    CMD_COUNT
};

static const struct key_command commands[CMD_COUNT] = {
    [CMD_OPEN] = {ACT_OPEN, "open a stage view (1 Data ... 5 Infrastructure)"},
    [CMD_SELECT] = {ACT_SELECT, "move the selection between stage boxes"},
    [CMD_ENTER] = {ACT_ENTER, "open the selected stage box"},
    [CMD_BACK] = {ACT_BACK, "back to the overview"},
    [CMD_KNOB_NEXT] = {ACT_KNOB_NEXT, "select the next knob"},
    [CMD_KNOB_PREV] = {ACT_KNOB_PREV, "select the previous knob"},
    [CMD_KNOB_INC] = {ACT_KNOB_INC, "raise the knob / next choice"},
    [CMD_KNOB_DEC] = {ACT_KNOB_DEC, "lower the knob / previous choice"},
    [CMD_KNOB_AUTO] = {ACT_KNOB_AUTO, "set the knob to auto (where it has one)"},
    [CMD_TEXT_DOWN] = {ACT_TEXT_DOWN, "scroll the explanation (also the wheel over it)"},
    [CMD_TEXT_UP] = {ACT_TEXT_UP, "scroll the explanation back"},
    [CMD_TEXT_START] = {ACT_TEXT_UP, "the start of the explanation"},
    [CMD_TEXT_END] = {ACT_TEXT_DOWN, "the end of the explanation"},
    [CMD_TEXT_FULL] = {ACT_TEXT_FULL, "the explanation full screen (e or Esc: back)"},
    [CMD_TOUR_NEXT] = {ACT_TOUR_NEXT, "tour: next stop"},
    [CMD_TOUR_PREV] = {ACT_TOUR_PREV, "tour: previous stop; play: back to the previous pause"},
    [CMD_CAPTION_BACK] = {ACT_CAPTION_BACK,
                          "play: scroll the narration back (also the wheel over it)"},
    [CMD_CAPTION_ON] = {ACT_CAPTION_ON, "play: scroll the narration forward"},
    [CMD_TOUR_END] = {ACT_TOUR, "end the tour"},
    [CMD_PARAMS] = {ACT_PARAMS, "play: show the scenario's parameters, to change them and restart"},
    [CMD_PARAM_PREV] = {ACT_PARAM_SEL, "select the previous parameter"},
    [CMD_PARAM_NEXT] = {ACT_PARAM_SEL, "select the next parameter"},
    [CMD_PARAM_INC] = {ACT_PARAM_CHANGE, "raise the parameter"},
    [CMD_PARAM_DEC] = {ACT_PARAM_CHANGE, "lower the parameter"},
    [CMD_PARAM_APPLY] = {ACT_PARAM_APPLY, "restart the scenario with these values"},
    [CMD_PARAMS_CLOSE] = {ACT_PARAMS, "close the parameters"},
    [CMD_PLAN] = {ACT_PLAN, "plan: search layouts for the fastest (ranked list, Pareto front)"},
    [CMD_PLAN_PREV] = {ACT_PLAN_ROW, "select the previous ranked row"},
    [CMD_PLAN_NEXT] = {ACT_PLAN_ROW, "select the next ranked row"},
    [CMD_PLAN_LOAD] = {ACT_PLAN_LOAD, "load the selected configuration into the live view"},
    [CMD_PLAN_BACK] = {ACT_BACK, "back to the overview (the search goes on)"},
    [CMD_INFER] = {ACT_INFER, "inference mode: the stages read for serving, or back"},
    [CMD_PAUSE] = {ACT_PAUSE, "pause or resume the simulation"},
    [CMD_STEP] = {ACT_STEP, "when paused: advance one training step"},
    [CMD_FASTER] = {ACT_FASTER, "simulate faster"},
    [CMD_SLOWER] = {ACT_SLOWER, "simulate slower"},
    [CMD_FASTER_ALL] = {ACT_FASTER, "simulate faster (also in stage views)"},
    [CMD_SLOWER_ALL] = {ACT_SLOWER, "simulate slower (also in stage views)"},
    [CMD_RESET] = {ACT_RESET, "restart the simulation from the setup"},
    [CMD_TOUR] = {ACT_TOUR, "start or stop the guided tour of the five stages"},
    [CMD_THEME] = {ACT_THEME, "cycle the colour theme (default, light, contrast, mono)"},
    [CMD_UNDO] = {ACT_UNDO, "undo the last knob change"},
    [CMD_WRITE] = {ACT_WRITE,
                   "write the setup as YAML to a new file here (mlviz-setup.yaml, -2, ...)"},
    [CMD_HELP] = {ACT_HELP, "show or hide this help"},
    [CMD_HELP_CLOSE] = {ACT_HELP, "close the help"},
    [CMD_HELP_SCROLL] = {ACT_HELP_SCROLL, "scroll the help"},
    [CMD_QUIT] = {ACT_QUIT, "quit mlviz"},
};

#define CMD(name) (&commands[CMD_##name])

/* The keys. Order matters twice: the footer shows hints in this order, and
 * for the same key a binding limited to fewer contexts is preferred (see
 * keys_lookup). */
static const struct key_binding bindings[] = {
    {'1', '5', "1-5", CMD(OPEN), 0, KEYCTX_OVERVIEW | KEYCTX_STAGE, "stage"},
    {KEY_LEFT, 0, "Left", CMD(SELECT), DIR_LEFT, KEYCTX_OVERVIEW, NULL},
    {KEY_RIGHT, 0, "Right", CMD(SELECT), DIR_RIGHT, KEYCTX_OVERVIEW, NULL},
    {KEY_UP, 0, "Up", CMD(SELECT), DIR_UP, KEYCTX_OVERVIEW, NULL},
    {KEY_DOWN, 0, "Down", CMD(SELECT), DIR_DOWN, KEYCTX_OVERVIEW, NULL},
    {KEY_NEWLINE, 0, "Enter", CMD(ENTER), 0, KEYCTX_OVERVIEW, "open"},
    {KEY_RETURN, 0, "Enter", CMD(ENTER), 0, KEYCTX_OVERVIEW, NULL},
    {KEY_ENTER, 0, "KP-Enter", CMD(ENTER), 0, KEYCTX_OVERVIEW, NULL},
    {KEY_ESCAPE, 0, "Esc", CMD(BACK), 0, KEYCTX_STAGE, "back"},
    {KEY_BACKSPACE, 0, "Backspace", CMD(BACK), 0, KEYCTX_STAGE, NULL},
    {KEY_DEL, 0, "Del", CMD(BACK), 0, KEYCTX_STAGE, NULL},
    {KEY_TAB, 0, "Tab", CMD(KNOB_NEXT), 0, KEYCTX_STAGE, "knob"},
    {KEY_DOWN, 0, "Down", CMD(KNOB_NEXT), 0, KEYCTX_STAGE, NULL},
    {KEY_BTAB, 0, "Shift-Tab", CMD(KNOB_PREV), 0, KEYCTX_STAGE, NULL},
    {KEY_UP, 0, "Up", CMD(KNOB_PREV), 0, KEYCTX_STAGE, NULL},
    {KEY_RIGHT, 0, "Right", CMD(KNOB_INC), 0, KEYCTX_STAGE, "change"},
    {'+', 0, "+", CMD(KNOB_INC), 0, KEYCTX_STAGE, NULL},
    {'=', 0, "=", CMD(KNOB_INC), 0, KEYCTX_STAGE, NULL},
    {KEY_LEFT, 0, "Left", CMD(KNOB_DEC), 0, KEYCTX_STAGE, NULL},
    {'-', 0, "-", CMD(KNOB_DEC), 0, KEYCTX_STAGE, NULL},
    {'a', 0, "a", CMD(KNOB_AUTO), 0, KEYCTX_STAGE, NULL},
    {KEY_NPAGE, 0, "PgDn", CMD(TEXT_DOWN), 0, KEYCTX_STAGE, NULL},
    {KEY_PPAGE, 0, "PgUp", CMD(TEXT_UP), 0, KEYCTX_STAGE, NULL},
    {KEY_HOME, 0, "Home", CMD(TEXT_START), -1, KEYCTX_STAGE, NULL},
    {KEY_END, 0, "End", CMD(TEXT_END), -1, KEYCTX_STAGE, NULL},
    {'e', 0, "e", CMD(TEXT_FULL), 0, KEYCTX_STAGE, "explain"},
    {'n', 0, "n", CMD(TOUR_NEXT), 0, KEYCTX_TOUR, "next"},
    {KEY_RIGHT, 0, "Right", CMD(TOUR_NEXT), 0, KEYCTX_TOUR, NULL},
    {KEY_NEWLINE, 0, "Enter", CMD(TOUR_NEXT), 0, KEYCTX_TOUR, NULL},
    {'b', 0, "b", CMD(TOUR_PREV), 0, KEYCTX_TOUR, "back"},
    {'p', 0, "p", CMD(TOUR_PREV), 0, KEYCTX_TOUR, NULL},
    {KEY_LEFT, 0, "Left", CMD(TOUR_PREV), 0, KEYCTX_TOUR, NULL},
    {KEY_PPAGE, 0, "PgUp", CMD(CAPTION_BACK), 0, KEYCTX_TOUR, NULL},
    {KEY_NPAGE, 0, "PgDn", CMD(CAPTION_ON), 0, KEYCTX_TOUR, NULL},
    {KEY_ESCAPE, 0, "Esc", CMD(TOUR_END), 0, KEYCTX_TOUR, "end tour"},
    {'o', 0, "o", CMD(PARAMS), 0, KEYCTX_TOUR | KEYCTX_PARAMS, "params"},
    {KEY_UP, 0, "Up", CMD(PARAM_PREV), -1, KEYCTX_PARAMS, NULL},
    {KEY_DOWN, 0, "Down", CMD(PARAM_NEXT), 1, KEYCTX_PARAMS, NULL},
    {KEY_TAB, 0, "Tab", CMD(PARAM_NEXT), 1, KEYCTX_PARAMS, NULL},
    {KEY_RIGHT, 0, "Right", CMD(PARAM_INC), 1, KEYCTX_PARAMS, NULL},
    {'+', 0, "+", CMD(PARAM_INC), 1, KEYCTX_PARAMS, NULL},
    {KEY_LEFT, 0, "Left", CMD(PARAM_DEC), -1, KEYCTX_PARAMS, NULL},
    {'-', 0, "-", CMD(PARAM_DEC), -1, KEYCTX_PARAMS, NULL},
    {KEY_NEWLINE, 0, "Enter", CMD(PARAM_APPLY), 0, KEYCTX_PARAMS, NULL},
    {KEY_RETURN, 0, "Enter", CMD(PARAM_APPLY), 0, KEYCTX_PARAMS, NULL},
    {KEY_ESCAPE, 0, "Esc", CMD(PARAMS_CLOSE), 0, KEYCTX_PARAMS, NULL},
    {'p', 0, "p", CMD(PLAN), 0, KEYCTX_OVERVIEW | KEYCTX_STAGE, "plan"},
    {KEY_UP, 0, "Up", CMD(PLAN_PREV), -1, KEYCTX_PLAN, NULL},
    {KEY_DOWN, 0, "Down", CMD(PLAN_NEXT), 1, KEYCTX_PLAN, "row"},
    {KEY_NEWLINE, 0, "Enter", CMD(PLAN_LOAD), 0, KEYCTX_PLAN, "load"},
    {KEY_RETURN, 0, "Enter", CMD(PLAN_LOAD), 0, KEYCTX_PLAN, NULL},
    {KEY_ESCAPE, 0, "Esc", CMD(PLAN_BACK), 0, KEYCTX_PLAN, "back"},
    {'p', 0, "p", CMD(PLAN_BACK), 0, KEYCTX_PLAN, NULL},
    {' ', 0, "space", CMD(PAUSE), 0, KEYCTX_ALL, "pause"},
    {'.', 0, ".", CMD(STEP), 0, KEYCTX_ALL, NULL},
    {'+', 0, "+", CMD(FASTER), 0, KEYCTX_OVERVIEW | KEYCTX_TOUR, "speed"},
    {'-', 0, "-", CMD(SLOWER), 0, KEYCTX_OVERVIEW | KEYCTX_TOUR, NULL},
    {']', 0, "]", CMD(FASTER_ALL), 0, KEYCTX_ALL, NULL},
    {'[', 0, "[", CMD(SLOWER_ALL), 0, KEYCTX_ALL, NULL},
    {'r', 0, "r", CMD(RESET), 0, KEYCTX_ALL, "reset"},
    {'i', 0, "i", CMD(INFER), 0, KEYCTX_OVERVIEW | KEYCTX_STAGE, "infer"},
    {'t', 0, "t", CMD(TOUR), 0, KEYCTX_OVERVIEW | KEYCTX_STAGE | KEYCTX_TOUR, "tour"},
    {'c', 0, "c", CMD(THEME), 0, KEYCTX_ALL, NULL},
    {'u', 0, "u", CMD(UNDO), 0, KEYCTX_ALL, NULL},
    {'w', 0, "w", CMD(WRITE), 0, KEYCTX_ALL, NULL},
    {'?', 0, "?", CMD(HELP), 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PLAN, "help"},
    {KEY_F(1), 0, "F1", CMD(HELP), 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PLAN, NULL},
    {'h', 0, "h", CMD(HELP), 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PLAN, NULL},
    {KEY_ESCAPE, 0, "Esc", CMD(HELP_CLOSE), 0, KEYCTX_HELP, NULL},
    {KEY_DOWN, 0, "Down", CMD(HELP_SCROLL), 1, KEYCTX_HELP, NULL},
    {KEY_UP, 0, "Up", CMD(HELP_SCROLL), -1, KEYCTX_HELP, NULL},
    {KEY_NPAGE, 0, "PgDn", CMD(HELP_SCROLL), 10, KEYCTX_HELP, NULL},
    {KEY_PPAGE, 0, "PgUp", CMD(HELP_SCROLL), -10, KEYCTX_HELP, NULL},
    {'q', 0, "q", CMD(QUIT), 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PARAMS | KEYCTX_PLAN, "quit"},
    {'Q', 0, "Q", CMD(QUIT), 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PARAMS | KEYCTX_PLAN, NULL},
    {KEY_F(10), 0, "F10", CMD(QUIT), 0, KEYCTX_ALL | KEYCTX_HELP | KEYCTX_PARAMS | KEYCTX_PLAN,
     NULL},
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
    return best->cmd->action;
}

size_t keys_footer(unsigned context, const struct key_binding **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < N_BINDINGS && n < max; i++)
        if (bindings[i].hint && (bindings[i].contexts & context))
            out[n++] = &bindings[i];
    return n;
}

static const unsigned context_order[] = {KEYCTX_OVERVIEW, KEYCTX_STAGE,  KEYCTX_TOUR,
                                         KEYCTX_HELP,     KEYCTX_PARAMS, KEYCTX_PLAN};

const char *keys_context_name(unsigned context)
{
    switch (context) {
    case KEYCTX_OVERVIEW:
        return "Overview";
    case KEYCTX_STAGE:
        return "Stage views";
    case KEYCTX_TOUR:
        return "Tour and played scenarios";
    case KEYCTX_HELP:
        return "Help";
    case KEYCTX_PARAMS:
        return "Scenario parameters (mlviz play)";
    case KEYCTX_PLAN:
        return "Plan screen";
    default:
        return "Everywhere";
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

static const unsigned help_sections[] = {KEYCTX_ALL,  KEYCTX_OVERVIEW, KEYCTX_STAGE, KEYCTX_TOUR,
                                         KEYCTX_HELP, KEYCTX_PARAMS,   KEYCTX_PLAN};

static bool same_entry(const struct key_binding *a, const struct key_binding *b)
{
    return home_context(a) == home_context(b) && a->cmd == b->cmd;
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
#define EMIT(...)                                                                                  \
    do {                                                                                           \
        if (used < len) {                                                                          \
            int w_ = snprintf(buf + used, len - used, __VA_ARGS__);                                \
            if (w_ > 0)                                                                            \
                used += (size_t)w_ < len - used ? (size_t)w_ : len - used - 1;                     \
        }                                                                                          \
    } while (0)
    for (size_t s = 0; s < sizeof help_sections / sizeof help_sections[0]; s++) {
        unsigned sec = help_sections[s];
        EMIT("%s:\n", keys_context_name(sec));
        for (size_t i = 0; i < N_BINDINGS; i++) {
            if (home_context(&bindings[i]) != sec || merged_earlier(i))
                continue;
            char label[64];
            merged_label(i, label, sizeof label);
            EMIT("  %-*s %s\n", KEYS_LABEL_W, label, bindings[i].cmd->help);
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
            roff_escape(out, bindings[i].cmd->help);
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
            fprintf(out, "| `%s` | %s |\n", label, bindings[i].cmd->help);
        }
    }
    fprintf(out, "\n%s\n", mouse_help);
}
