/* chrome: what surrounds the views: the title line, the footer of key
 * hints, the caption (tour text, or a played scenario's transcript), and
 * the overlays drawn over a view: the key help and a played scenario's
 * parameters. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "keys.h"
#include "theme.h"
#include "units.h"
#include "views.h"

enum { FOOTER_MAX = 24 };

/* A story's case is named "SETUP - CASE": where the title is too narrow
 * for all of it, the setup's part is cut ("4 DGX H100 per… - immersion")
 * so the case stays in sight. Cuts whole UTF-8 characters. */
static void title_keep_case(char *title, size_t len, int w)
{
    char *sep = strstr(title, " - ");
    for (char *next = sep; next; next = strstr(next + 3, " - "))
        sep = next;
    if (!sep || draw_width(title) <= w)
        return;
    char tail[192];
    snprintf(tail, sizeof tail, "%s", sep);
    const char *ell = glyphs_active()->ellipsis;
    size_t keep = (size_t)(sep - title);
    int head_min = draw_width(" mlviz | x | ") + 4;
    while (keep > 0 && draw_width(title) > w) {
        do
            keep--;
        while (keep > 0 && ((unsigned char)title[keep] & 0xC0) == 0x80);
        snprintf(title + keep, len - keep, "%s%s", ell, tail);
        if (draw_width(title) - draw_width(tail) < head_min)
            return; /* no room for the setup's part: draw_text cuts the end */
    }
}

void view_draw_title(const struct view_ctx *v, struct view_out *out, const char *where)
{
    const struct glyphs *g = glyphs_active();
    struct rect r = v->lay->title;
    draw_repeat(r.y, 0, r.w, ROLE_TITLE, " ");
    char clock[32], left[256];
    format_clock(clock, sizeof clock, v->counters->time_s);
    /* Where you are first: the setup name is what gets cut on narrow screens. */
    const struct setup *s = v->setup;
    char now[160] = "";
    /* Knobs changed the cluster: the loaded name no longer says what runs. */
    if (s->cluster.nodes != v->setup0->cluster.nodes ||
        s->cluster.node.accelerators_per_node != v->setup0->cluster.node.accelerators_per_node ||
        strcmp(s->cluster.node.accelerator, v->setup0->cluster.node.accelerator) != 0) {
        char acc[64];
        snprintf(now, sizeof now, ", now %d x %d %s", s->cluster.nodes,
                 s->cluster.node.accelerators_per_node,
                 view_short_name(s->cluster.node.accelerator, acc, sizeof acc));
    }
    snprintf(left, sizeof left, " mlviz %s %s %s %s%s", g->v, where, g->v, s->name, now);
    char right[160];
    char speed[32], num[24];
    if (v->speed < 1) {
        /* Two digits, no exponent, no trailing zero: "0.5", "0.001", "0.00001". */
        format_short(num, sizeof num, v->speed, 2);
    } else {
        snprintf(num, sizeof num, "%.0f", v->speed);
    }
    snprintf(speed, sizeof speed, "x%s", num);
    const char *state = !v->sim      ? "stopped"
                        : v->paused  ? NULL
                        : v->lagging ? "running (sim-limited)"
                                     : "running";
    snprintf(right, sizeof right, "sim %s  %s  ", clock, speed);
    int rw = draw_width(right) + (state ? draw_width(state) + 2 : 11) + 8;
    /* The setup's name must show (it is what a class is looking at): on a
     * narrow screen the clock and the state word give way first. */
    bool bare = false; /* running, on a narrow screen: no state arrow either */
    if (draw_width(left) + rw + 1 > r.w) {
        snprintf(right, sizeof right, "%s ", speed);
        bare = state != NULL;
        rw = draw_width(right) + (bare ? 0 : 11) + 8;
        if (bare && draw_width(left) + rw + 1 > r.w) {
            right[0] = '\0'; /* and then the speed */
            rw = 8;
        }
    }
    int rx = r.w - rw;
    if (rx < 0)
        rx = 0;
    title_keep_case(left, sizeof left, rx - 1);
    draw_text(r.y, 0, rx - 1, ROLE_TITLE, left);
    int used = draw_text(r.y, rx, r.w - rx, ROLE_TITLE, right);
    if (state && !bare) {
        char st[64];
        snprintf(st, sizeof st, "%s %s", g->arrow_right, state);
        used += draw_text(r.y, rx + used, r.w - rx - used, ROLE_TITLE, st);
    } else if (!state) {
        used += draw_text(r.y, rx + used, r.w - rx - used, ROLE_PAUSED, " || PAUSED ");
    }
    used += draw_text(r.y, rx + used, r.w - rx - used, ROLE_TITLE, "  ? help");
    hit_add(out->hits, r.y, rx + used - 8, 1, 8, ACT_HELP, 0);
}

/* Footer entries shown at any width: help and quit (the last two), and
 * on the overview the tour, where a newcomer starts. */
static bool footer_kept(const struct key_binding **items, size_t n, size_t i, unsigned context)
{
    return i + 2 >= n || (context == KEYCTX_OVERVIEW && items[i]->cmd->action == ACT_TOUR);
}

void view_draw_footer(const struct view_ctx *v, struct view_out *out, unsigned context)
{
    struct rect r = v->lay->footer;
    const struct key_binding *items[FOOTER_MAX];
    size_t n = keys_footer(context, items, FOOTER_MAX);
    int x = 1;
    /* The entries that always show (footer_kept): reserve their room. */
    int reserve = 0;
    for (size_t i = 0; i < n; i++)
        if (footer_kept(items, n, i, context))
            reserve += draw_width(items[i]->label) + 1 + draw_width(items[i]->hint) + 2;
    for (size_t i = 0; i < n; i++) {
        /* Scenario parameters belong to a played story, not the tour. */
        if (items[i]->cmd->action == ACT_PARAMS && !v->playing)
            continue;
        int need = draw_width(items[i]->label) + 1 + draw_width(items[i]->hint) + 2;
        bool kept = footer_kept(items, n, i, context);
        if (kept)
            reserve -= need;
        if (x + need + (kept ? 0 : reserve) > r.w) {
            if (kept)
                break;
            continue;
        }
        int x0 = x;
        x += draw_text(r.y, x, r.w - x, ROLE_KEY, items[i]->label);
        x += draw_text(r.y, x, r.w - x, ROLE_DIM, " ");
        x += draw_text(r.y, x, r.w - x, ROLE_DIM, items[i]->hint);
        hit_add(out->hits, r.y, x0, 1, x - x0, items[i]->cmd->action, items[i]->arg);
        x += 2;
    }
}

/* Rows one transcript entry takes when wrapped to w columns. */
static int said_rows(const struct ui_said *e, int w)
{
    struct rect none = {0, 0, 0, w};
    int n = draw_wrap(&none, ROLE_TEXT, e->text, 0);
    return n > 0 ? n : 1;
}

/* The table header to pin above the transcript when `first` (a wrapped
 * row) falls among a printed table's rows below it: the header's entry
 * index, or -1 (the header is in sight, or no table row is first). */
static int pinned_header(const struct view_ctx *v, int w, int first)
{
    int row = 0, at = -1;
    for (int i = 0; i < v->transcript_count && at < 0; i++) {
        int n = said_rows(&v->transcript[i], w);
        if (row + n > first)
            at = i;
        else
            row += n;
    }
    if (at < 0 || (v->transcript[at].header && row == first))
        return -1;
    for (int i = at; i >= 0; i--) {
        const struct ui_said *e = &v->transcript[i];
        if (e->header)
            return i;
        if (!e->printed)
            return -1;
    }
    return -1;
}

/* mlviz play: the transcript (narration and printed lines, newest at the
 * bottom, scrolled back by caption_scroll rows) above one prompt row. Until
 * the reader scrolls (caption_scroll -1) an entry taller than the pane shows
 * from its start: a case's "Case 3 of 4, ...: the bottleneck is ..." keeps
 * its verdict in sight on a small screen, PgDn reads on. A printed table
 * keeps its header row at the top while its rows show. */
static void draw_transcript(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    int rows = in.h - 1;
    int total = 0, newest = 0;
    for (int i = 0; i < v->transcript_count; i++)
        total += newest = said_rows(&v->transcript[i], in.w);
    int max_scroll = total > rows ? total - rows : 0;
    int scroll = v->caption_scroll;
    if (scroll < 0)
        scroll = newest > rows ? newest - rows : 0;
    if (scroll > max_scroll)
        scroll = max_scroll;
    out->caption_scroll = scroll;
    int first = total - rows - scroll;
    if (first < 0)
        first = 0;
    int row = 0, y = in.y;
    int pin = rows > 1 ? pinned_header(v, in.w, first) : -1;
    if (pin >= 0) {
        struct rect r = {in.y, in.x, 1, in.w};
        draw_wrap(&r, ROLE_CAPTION, v->transcript[pin].text, 0);
        first++; /* the rest of the pane shows the rows below, to the newest */
        y++;
    }
    for (int i = 0; i < v->transcript_count && y < in.y + rows; i++) {
        const struct ui_said *e = &v->transcript[i];
        int n = said_rows(e, in.w);
        if (row + n > first) {
            int skip = first > row ? first - row : 0;
            struct rect r = {y, in.x, in.y + rows - y, in.w};
            draw_wrap(&r, e->printed ? ROLE_DIM : ROLE_CAPTION, e->text, skip);
            y += n - skip;
        }
        row += n;
    }
    char prompt[160];
    const char *what = v->play_waiting ? "space: continue  b: back  r: restart"
                       : v->play_done  ? "The end.  r: restart  b: back  q: quit"
                                       : "playing...  b: back  r: restart";
    if (max_scroll > 0)
        snprintf(prompt, sizeof prompt, "%s  PgUp/PgDn: narration %d/%d", what, total - scroll,
                 total);
    else
        snprintf(prompt, sizeof prompt, "%s", what);
    draw_text(in.y + rows, in.x, in.w, v->play_waiting || v->play_done ? ROLE_KEY : ROLE_DIM,
              prompt);
    hit_add_wheel(out->hits, in.y, in.x, in.h, in.w, ACT_NONE, 2, ACT_CAPTION_BACK, ACT_CAPTION_ON);
}

void view_draw_caption(const struct view_ctx *v, struct view_out *out)
{
    struct rect r = v->lay->caption;
    if (r.h <= 0)
        return;
    for (int i = 0; i < r.h; i++)
        draw_repeat(r.y + i, r.x, r.w, ROLE_CAPTION, " ");
    char text[STAGETEXT_LONG + UI_MSG_LEN * 4];
    struct rect in = {r.y, r.x + 1, r.h, r.w - 2};
    if (v->playing) {
        draw_transcript(v, out, in);
        return;
    }
    const char *body;
    int s = v->tour_stop;
    if (s == 0)
        body = v->texts->tour_intro;
    else if (s <= STAGE_COUNT)
        body = v->texts->stage[s - 1].tour;
    else
        body = v->texts->tour_outro;
    snprintf(text, sizeof text, "Tour %d/%d  %s", s + 1, TOUR_STOPS, body);
    draw_wrap(&in, ROLE_CAPTION, text, 0);
}

void view_draw_too_small(const struct view_ctx *v)
{
    char msg[160];
    erase();
    snprintf(msg, sizeof msg, "mlviz needs a terminal of at least %dx%d; this one is %dx%d.",
             v->lay->need_cols, v->lay->need_rows, COLS, LINES);
    int y = LINES / 2 - 1;
    draw_wrap(&(struct rect){y < 0 ? 0 : y, 1, 3, COLS - 2}, ROLE_WARN, msg, 0);
    draw_text(y + 3, 1, COLS - 2, ROLE_DIM, "Enlarge the window or use a smaller font. q quits.");
}

/* What the symbols and abbreviations on screen mean, in the glyphs in use. */
static void help_symbols(char *buf, size_t len)
{
    const struct glyphs *g = glyphs_active();
    snprintf(buf, len,
             "Symbols:\n"
             "\t%s BOTTLENECK: the stage that sets the pace (heavy border)\n"
             "\t\"now:\" beside it: the live run differs from the steady state\n"
             "\t%s %s %s: a device busy, failed, hot (throttled)\n"
             "\t%s on %s: a batch moving along an arrow, at the flow's rate\n"
             "\tq 1/2: a queue gauge, batches waiting / room in the queue\n"
             "\tReading order: 1 %s 2 %s 3, %s 4 (gradient sync), %s 5 (heat to cooling)\n"
             "\ttop 114 k: a sparkline's scale, fixed for the run\n"
             "\tsteady state: the model's figures; \"now:\" the live run's\n"
             "\t%s on the roofline: the largest GEMM's FLOP/byte and speed\n"
             "\tTP PP DP: tensor, pipeline, data parallel sizes (CP context, EP experts)\n"
             "\tZeRO-3 w+g: weights gathered and gradients scattered (FSDP)\n"
             "\t%s %s %s: a fit or check that passes, fails, warns\n"
             "\tMFU: useful model FLOPs (6 x params x tokens) per second / peak\n"
             "\tHFU: all executed FLOPs (recomputation too) per second / peak\n"
             "\tPUE: facility power over IT power\n"
             "\tGB: 10^9 bytes, for every memory figure (an \"80GB\" H100 holds 80 GiB,\n"
             "\t  85.5 GB usable: datasheets' GB are GiB)\n"
             "\tPgDn 2/5: where the explanation is (PgUp/PgDn/Home/End; e: full)\n"
             "\twarming up: live figures wait for a whole step since the setup changed\n"
             "\t~44%%: a live figure still settling (too few whole steps for a steady\n"
             "\t  average: each step's storage and compute time varies)\n"
             "\tstep bar: compute, comm, bubble (pipeline fill and drain), stragglers\n"
             "\t  (waiting for the slowest device), data (waiting for batches), other\n"
             "\texposed: communication time not hidden behind computation\n"
             "\tahead 2: batches the loaders prepare ahead of the devices (prefetch)\n"
             "\tscale-up domain: devices joined by the fast fabric (NVLink, ICI)\n"
             "\tTTFT, TPOT: time to first token, time per output token (key i)\n"
             "\t%s %s on the serving roofline: prefill, decode at the batch\n",
             g->bottleneck, g->device, g->device_failed, g->device_hot, g->batch, g->track,
             g->arrow_right, g->arrow_right, g->arrow_down, g->arrow_left, g->bullet, g->pass,
             g->fail, g->warn, g->bullet, g->batch);
}

void view_draw_help(const struct view_ctx *v, struct view_out *out)
{
    static char text[8192];
    size_t used = keys_help_text(text, sizeof text);
    help_symbols(text + used, sizeof text - used);
    struct rect r = v->lay->help;
    draw_clear(&r);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    /* The mouse line wraps: count it twice. */
    lines++;
    /* Two columns when the list does not fit one and the box is wide. */
    enum { TWO_COL_MIN_W = 2 * 56 };
    int cols_n = lines > in.h && in.w >= TWO_COL_MIN_W ? 2 : 1;
    int col_w = in.w / cols_n;
    int max_scroll = lines - in.h * cols_n;
    if (max_scroll < 0)
        max_scroll = 0;
    int scroll = v->help_scroll > max_scroll ? max_scroll : v->help_scroll;
    out->help_scroll = scroll;
    draw_box(&r, ROLE_BORDER_SEL, true,
             max_scroll ? "help - keys and symbols (Up/Down scroll, any other key closes)"
                        : "help - keys and symbols (any key closes)",
             ROLE_HEADING);
    int row = -scroll, col = 0;
    const char *p = text;
    while (*p && col < cols_n) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        int x = in.x + col * col_w;
        if (line[0] == 'M') {
            if (row >= 0) {
                struct rect wr = {in.y + row, x, in.h - row, col_w - 1};
                row += draw_wrap(&wr, ROLE_DIM, line, 0);
            } else {
                row += 2;
            }
        } else {
            if (row >= 0 && row < in.h) {
                if (line[0] == '\t') {
                    /* A symbol's meaning: free text, indented like the keys. */
                    draw_text(in.y + row, x + 2, col_w - 3, ROLE_TEXT, line + 1);
                } else if (line[0] != ' ') {
                    draw_text(in.y + row, x, col_w - 1, ROLE_HEADING, line);
                } else {
                    /* "  label  help": the key part in the key role */
                    enum { KEY_COL = 2 + KEYS_LABEL_W + 1 };
                    char key[64];
                    snprintf(key, sizeof key, "%.*s", KEY_COL, line);
                    draw_text(in.y + row, x, KEY_COL, ROLE_KEY, key);
                    draw_text(in.y + row, x + KEY_COL, col_w - KEY_COL - 1, ROLE_TEXT,
                              n > KEY_COL ? line + KEY_COL : "");
                }
            }
            row++;
        }
        if (row >= in.h) {
            row = 0;
            col++;
        }
        p = nl ? nl + 1 : p + n;
    }
}

/* A parameter's value as people read it: a number (the text the script
 * receives may be "3.1e+06" or "60200000.0") in six significant digits,
 * never an exponent; other text as it is. */
static void param_shown(const struct ui_param *q, char *buf, size_t len)
{
    char *end;
    double x = strtod(q->value, &end);
    if (strcmp(q->type, "number") == 0 && end != q->value && *end == '\0' && isfinite(x))
        format_short(buf, len, x, 6);
    else
        snprintf(buf, len, "%s", q->value);
}

/* The played scenario's parameters as knobs, over the view. */
void view_draw_params(const struct view_ctx *v, struct view_out *out)
{
    struct rect r = v->lay->help;
    draw_clear(&r);
    draw_box(&r, ROLE_BORDER_SEL, true,
             "scenario parameters - Up/Down select, Left/Right change, Enter restarts, Esc closes",
             ROLE_HEADING);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    enum { NAME_W = 18, VALUE_W = 14 };
    (void)out;
    /* A parameter takes one or two rows: keep the selected one in sight. */
    int fit = (in.h - 1) / 2 > 0 ? (in.h - 1) / 2 : 1;
    int first = v->param_sel >= fit ? v->param_sel - fit + 1 : 0;
    int row = 0, shown = 0;
    for (int i = first; i < v->n_params && row + 1 < in.h; i++, shown++) {
        bool sel = i == v->param_sel;
        int y = in.y + row;
        draw_text(y, in.x, 2, ROLE_KEY, sel ? glyphs_active()->selector : " ");
        draw_text(y, in.x + 2, NAME_W, sel ? ROLE_KNOB_SEL : ROLE_TEXT, v->params[i].name);
        char num[64], val[80];
        param_shown(&v->params[i], num, sizeof num);
        snprintf(val, sizeof val, "%s %s %s", glyphs_active()->dec, num, glyphs_active()->inc);
        draw_text(y, in.x + 2 + NAME_W, VALUE_W + 4, ROLE_VALUE, val);
        struct rect help = {y, in.x + 2 + NAME_W + VALUE_W + 5, 2,
                            in.w - (2 + NAME_W + VALUE_W + 5)};
        int used = help.w > 10 ? draw_wrap(&help, ROLE_DIM, v->params[i].help, 0) : 1;
        row += used > 0 ? used : 1; /* a parameter without help still has its row */
    }
    /* Never drop one silently: say how many are out of sight. */
    int hidden = v->n_params - shown + v->params_more;
    if (hidden > 0 && in.h > 0)
        draw_textf(in.y + in.h - 1, in.x, in.w, ROLE_DIM, "+%d more (Up/Down scrolls%s)", hidden,
                   v->params_more ? "; set the rest on the command line" : "");
}
