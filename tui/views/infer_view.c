/* infer_view: what the inference mode's views share (infer_view.h), and the
 * stage views' live strip read for serving: the headline figures of `mlviz
 * infer`, a line about the open stage and the serving verdict. */
#include "infer_view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "glyphs.h"
#include "theme.h"
#include "units.h"

const char *const infer_part_names[INFER_PARTS] = {"GEMMs", "attention", "memory", "overhead",
                                                   "comm"};
const enum theme_role infer_part_roles[INFER_PARTS] = {
    ROLE_PART_COMPUTE, ROLE_PART_DATA, ROLE_PART_OTHER, ROLE_PART_BUBBLE, ROLE_PART_COMM};
const char *const infer_mem_names[INFER_MEM_PARTS] = {"weights", "KV", "workspace", "reserve",
                                                      "free"};
const enum theme_role infer_mem_roles[INFER_MEM_PARTS] = {
    ROLE_MEM_WEIGHTS, ROLE_MEM_ACT, ROLE_MEM_OPTIM, ROLE_PART_OTHER, ROLE_MEM_FREE};

int infer_fit(int y, int x, int w, enum theme_role role, const char *const *variants, int n)
{
    for (int i = 0; i < n; i++)
        if (variants[i] && draw_width(variants[i]) <= w)
            return draw_text(y, x, w, role, variants[i]);
    return n > 0 ? draw_text(y, x, w, role, variants[n - 1]) : 0;
}

/* The verdict's lead ("◆ BOTTLENECK ▶ ACCELERATORS - ", "✘ CANNOT SERVE: ")
 * into lead and its reason in `level` words (view_reason_brief) into why; false
 * when it cannot serve. */
static bool verdict_parts(const struct view_ctx *v, bool caps, int level, char *lead,
                          size_t lead_len, char *why, size_t why_len)
{
    const struct glyphs *g = glyphs_active();
    const struct infer_report *r = v->infer;
    if (!r->runnable) {
        snprintf(lead, lead_len, "%s CANNOT SERVE: ", g->fail);
        view_reason_brief(r->why_not, level > 1 ? 1 : level, why, why_len);
        return false;
    }
    int d = r->decode_bottleneck, p = r->prefill_bottleneck;
    if (d < 0 || d >= STAGE_COUNT)
        d = STAGE_ACCELERATORS;
    if (p < 0 || p >= STAGE_COUNT)
        p = d;
    snprintf(lead, lead_len, "%s BOTTLENECK %s %s - ", g->bottleneck, g->arrow_right,
             caps ? stage_table[d].caps : stage_table[d].title);
    char dr[256], pr[256];
    view_reason_brief(r->decode_reason, level, dr, sizeof dr);
    view_reason_brief(r->prefill_reason, level, pr, sizeof pr);
    if (p == d)
        snprintf(why, why_len, "decode %s; prefill %s", dr, pr);
    else
        snprintf(why, why_len, "decode %s; prefill: %s, %s", dr, stage_table[p].title, pr);
    return true;
}

/* The fullest wording that fits `rows` rows of w columns: the whole
 * reason, its first clauses, or the verdicts alone (never a figure cut).
 * Returns the rows it takes (more than `rows` when none fits). */
static int verdict_choose(const struct view_ctx *v, bool caps, int w, int rows, bool *serves,
                          char *lead, size_t lead_len, char *why, size_t why_len)
{
    int need = 0;
    for (int level = 0; level < VIEW_REASON_LEVELS; level++) {
        *serves = verdict_parts(v, caps, level, lead, lead_len, why, why_len);
        need = view_wrapped_rows(why, draw_width(lead), w);
        if (need <= rows)
            break;
    }
    return need;
}

int infer_verdict_height(const struct view_ctx *v, int w, int rows)
{
    char lead[96], why[1200];
    bool serves;
    int need = verdict_choose(v, false, w, rows, &serves, lead, sizeof lead, why, sizeof why);
    return need < rows ? need : rows;
}

int infer_verdict_row(const struct view_ctx *v, int y, int x, int w, bool caps, int rows)
{
    char lead[96], why[1200];
    bool serves = true;
    verdict_choose(v, caps, w, rows, &serves, lead, sizeof lead, why, sizeof why);
    int used = draw_text(y, x, w, serves ? ROLE_BOTTLENECK : ROLE_FAILED, lead);
    enum theme_role role = serves ? ROLE_TEXT : ROLE_FAILED;
    const char *rest = why;
    int row = 0, room = w - used;
    for (; row < rows; row++) {
        size_t n = row + 1 < rows ? view_fitting_head(rest, room) : strlen(rest);
        char head[sizeof why];
        snprintf(head, sizeof head, "%.*s", (int)n, rest);
        if (row == 0)
            draw_text(y, x + used, room, role, head);
        else
            draw_textf(y + row, x, w, role, "   %s", head);
        rest += n;
        if (!*rest)
            return row + 1;
        rest++; /* the space it wrapped at */
        room = w - 3;
    }
    return rows;
}

void infer_parts(const struct infer_breakdown *b, double parts[INFER_PARTS])
{
    parts[0] = b->gemm;
    parts[1] = b->attention;
    parts[2] = b->other;
    parts[3] = b->kernels + b->host;
    parts[4] = b->tp_comm + b->pp_p2p;
    for (int i = 0; i < INFER_PARTS; i++)
        if (!isfinite(parts[i]) || parts[i] < 0)
            parts[i] = 0;
}

double infer_memory_parts(const struct infer_report *r, double parts[INFER_MEM_PARTS])
{
    parts[0] = r->weights_gb_per_device;
    parts[1] = r->kv_cache_gb_per_device;
    parts[2] = r->activations_gb_per_device;
    parts[3] = r->reserved_gb_per_device;
    double used = 0;
    for (int i = 0; i < 4; i++) {
        if (!isfinite(parts[i]) || parts[i] < 0)
            parts[i] = 0;
        used += parts[i];
    }
    double cap = isfinite(r->capacity_gb) && r->capacity_gb > used ? r->capacity_gb : used;
    parts[4] = cap - used;
    return cap;
}

void infer_legend(int y, int x, int w, const char *const *names, const enum theme_role *roles,
                  const double *values, const char *unit, int n)
{
    int lx = x;
    for (int i = 0; i < n; i++) {
        char item[64], num[32] = "";
        if (values)
            format_fixed(num, sizeof num, values[i], values[i] < 10 ? 1 : 0);
        snprintf(item, sizeof item, " %s%s%s%s  ", names[i], values ? " " : "", num,
                 values && i == n - 1 && unit ? unit : "");
        int need = 1 + draw_width(item) - 2; /* the trailing gap may fall off */
        if (lx + need > x + w)
            continue;
        lx += draw_text(y, lx, x + w - lx, roles[i], draw_part_fill((size_t)i, true));
        lx += draw_text(y, lx, x + w - lx, ROLE_DIM, item);
    }
}

/* ---- the stage views' live strip ---- */

void view_infer_headline(const struct view_ctx *v, int y, int x, int w)
{
    const struct infer_report *r = v->infer;
    if (!r->runnable) {
        draw_text(y, x, w, ROLE_FAILED, "cannot serve: no latency, throughput or cost");
        return;
    }
    char ttft[32], tpot[32], tps[32], usd[32], lat[32];
    format_duration(ttft, sizeof ttft, r->ttft_s);
    format_duration(tpot, sizeof tpot, r->tpot_s);
    format_duration(lat, sizeof lat, r->latency_s);
    format_si(tps, sizeof tps, r->output_tokens_per_s, "");
    format_usd(usd, sizeof usd, r->usd_per_mtok);
    char a[256], b[256], c[256];
    snprintf(a, sizeof a, "TTFT %s   TPOT %s   latency %s   tokens/s %s   %s/Mtok", ttft, tpot, lat,
             tps, usd);
    snprintf(b, sizeof b, "TTFT %s  TPOT %s  tokens/s %s  %s/Mtok", ttft, tpot, tps, usd);
    snprintf(c, sizeof c, "TTFT %s TPOT %s tokens/s %s", ttft, tpot, tps);
    const char *const variants[] = {a, b, c};
    infer_fit(y, x, w, ROLE_VALUE, variants, 3);
}

/* One line about the open stage, read for serving. */
static void live_stage_line(const struct view_ctx *v, int y, int x, int w)
{
    const struct infer_report *r = v->infer;
    char a[48], b[48], c[48], line[3][256];
    if (!r->runnable) {
        draw_text(y, x, w, ROLE_FAILED, r->why_not);
        return;
    }
    switch (v->stage) {
    case STAGE_DATA:
        format_si(a, sizeof a, r->requests_per_s, "");
        snprintf(line[0], sizeof line[0],
                 "%d prompt and %d output tokens a request   %s requests/s",
                 v->setup->inference.prompt_tokens, v->setup->inference.output_tokens, a);
        snprintf(line[1], sizeof line[1], "%d in, %d out a request, %s req/s",
                 v->setup->inference.prompt_tokens, v->setup->inference.output_tokens, a);
        break;
    case STAGE_CPUS:
        format_duration(a, sizeof a, r->decode.host);
        snprintf(line[0], sizeof line[0],
                 "engine host time %s a step   batch %d of %d that fit   %s", a, r->batch,
                 r->max_batch, r->software);
        snprintf(line[1], sizeof line[1], "host %s/step  batch %d of %d", a, r->batch,
                 r->max_batch);
        break;
    case STAGE_ACCELERATORS:
        format_si(a, sizeof a, r->kv_bytes_per_token, "B");
        snprintf(line[0], sizeof line[0],
                 "KV cache %.1f GB a device (%s a token)   weights %.1f GB   %d %s",
                 r->kv_cache_gb_per_device, a, r->weights_gb_per_device, r->max_batch,
                 r->max_batch == 1 ? "sequence fits" : "sequences fit");
        snprintf(line[1], sizeof line[1], "KV %.1f GB  weights %.1f GB  fit %d",
                 r->kv_cache_gb_per_device, r->weights_gb_per_device, r->max_batch);
        break;
    case STAGE_INTERCONNECT:
        format_duration(a, sizeof a, r->decode.tp_comm);
        format_duration(b, sizeof b, r->prefill.tp_comm);
        format_duration(c, sizeof c, r->decode.pp_p2p + r->prefill.pp_p2p);
        snprintf(line[0], sizeof line[0],
                 "TP %d x PP %d   all-reduces %s a decode step, %s a prefill   hand-offs %s", r->tp,
                 r->pp, a, b, c);
        snprintf(line[1], sizeof line[1], "TP%d PP%d  all-reduce %s/step", r->tp, r->pp, a);
        break;
    default:
        format_si(a, sizeof a, r->it_kw * 1e3, "W");
        format_usd(b, sizeof b, r->usd_per_hour);
        format_si(c, sizeof c, r->joules_per_token, "J");
        snprintf(line[0], sizeof line[0], "IT %s   %s/h   %s a token   device %.0f W", a, b, c,
                 r->device_w);
        snprintf(line[1], sizeof line[1], "IT %s  %s/h", a, b);
        break;
    }
    const char *const variants[] = {line[0], line[1]};
    infer_fit(y, x, w, ROLE_TEXT, variants, 2);
}

void view_infer_live(const struct view_ctx *v, struct view_out *out)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    struct rect l = v->lay->live;
    int x = l.x + 1, w = l.w - 2;
    /* A verdict too long for its row takes the stage's line too (a status
     * message then the headline's right half), never cut. */
    view_infer_headline(v, l.y, x, w);
    if (infer_verdict_height(v, w, 2) > 1) {
        if (v->status[0]) {
            int half = l.w / 2;
            draw_repeat(l.y, half, l.w - half, ROLE_TEXT, " ");
            draw_textf(l.y, half, l.w - half - 1, ROLE_WARN, "%s %s", g->bullet, v->status);
        }
        infer_verdict_row(v, l.y + 1, x, w, false, 2);
        return;
    }
    if (v->status[0])
        draw_textf(l.y + 1, x, w, ROLE_WARN, "%s %s", g->bullet, v->status);
    else
        live_stage_line(v, l.y + 1, x, w);
    infer_verdict_row(v, l.y + 2, x, w, false, 1);
}

int view_infer_verdict_rows(const struct view_ctx *v, int w, int rows)
{
    return infer_verdict_height(v, w, rows);
}

int view_infer_verdict(const struct view_ctx *v, int y, int x, int w, int rows)
{
    return infer_verdict_row(v, y, x, w, false, rows);
}
