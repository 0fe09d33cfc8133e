/* pic_net: the Interconnect stage's picture: the expert all-to-all, the
 * context-parallel K/V ring, which groups stay inside the scale-up domain,
 * the data-parallel all-reduce ring or tree and the pipeline schedule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "model.h"
#include "pictures.h"
#include "setup.h"
#include "theme.h"
#include "units.h"

/* Text wrapped at word boundaries from row y, never past the rectangle's
 * bottom; returns the rows used. */
static int wrap_rows(struct rect in, int y, enum theme_role role, const char *text)
{
    struct rect r = {.y = y, .x = in.x, .h = in.y + in.h - y, .w = in.w};
    if (r.h <= 0)
        return 0;
    int n = draw_wrap(&r, role, text, 0);
    return n < r.h ? n : r.h;
}

/* "12 of 36" at (y, x) when all of it fits before the right edge. */
static void shown_of(struct rect in, int y, int x, int shown, int n)
{
    char note[32];
    snprintf(note, sizeof note, "%d of %d", shown, n);
    if (n > shown && in.x + in.w - x >= draw_width(note))
        draw_text(y, x, in.x + in.w - x, ROLE_DIM, note);
}

/* Whether the animation runs (a sim that is not paused), and which half of
 * a two-second cycle it is in. */
static int anim_half(const struct view_ctx *v)
{
    if (!v->sim || v->paused)
        return -1;
    return (int)fmod(v->wall_s, 2.0);
}

/* The all-to-all time of a step before any overlap (the report's
 * stages.ep_comm_s; breakdown.ep_comm is what stays exposed). */
static double ep_a2a_full_s(const struct view_ctx *v)
{
    return v->report->stages.ep_comm_s;
}

/* y2026: where the dispatch goes (model_ep_dispatch_paths): inside one
 * scale-up domain (an NVL72 rack, an 8-GPU node) over NVLink, or across
 * domains over the NICs, with the per-device bandwidths the model times;
 * DeepEP's NVLink + RDMA kernels or NCCL's all-to-all. */
static const char *ep_paths_text(const struct view_ctx *v, char *buf, size_t len)
{
    struct ep_dispatch_paths p;
    model_ep_dispatch_paths(v->setup, v->res, &p);
    const char *who = p.deepep ? "DeepEP" : "NCCL all-to-all";
    char in_bw[16], out_bw[16];
    format_significant(in_bw, sizeof in_bw, p.inside_gbs, 3);
    format_significant(out_bw, sizeof out_bw, p.across_gbs, 3);
    int domain = setup_scaleup_domain(v->setup);
    const char *link = v->res->intra_link ? v->res->intra_link->head.id : "scale-up";
    if (p.domains <= 1)
        snprintf(buf, len, "%s: all %d ranks inside one %d-device %s domain, %s GB/s each", who,
                 p.ranks, domain, link, in_bw);
    else
        snprintf(buf, len,
                 "%s: %d domains of %d rank%s; inside a domain %s %s GB/s, across %s %s GB/s "
                 "per device",
                 who, p.domains, p.ranks_in_domain, p.ranks_in_domain == 1 ? "" : "s", link, in_bw,
                 p.deepep ? "RDMA" : "the NICs", out_bw);
    return buf;
}

/* Ranks on top, each rank's experts below, every rank linked to every
 * other ('/' and '\' between the columns): the dispatch sends each token
 * to the ranks of its top-k experts, the combine brings the results back. */
static int pic_experts(const struct view_ctx *v, struct rect in, int y)
{
    const struct model_report *r = v->report;
    const struct glyphs *g = glyphs_active();
    char full[32], exp[32], line[256];
    format_duration(full, sizeof full, ep_a2a_full_s(v));
    format_duration(exp, sizeof exp, r->breakdown.ep_comm);
    if (v->setup->training.ep_comm_overlap)
        snprintf(line, sizeof line,
                 "expert dispatch/combine all-to-all, EP=%d: %s per step, %s exposed", r->ep, full,
                 exp);
    else
        snprintf(line, sizeof line,
                 "expert dispatch/combine all-to-all, EP=%d: %s per step, all exposed", r->ep, exp);
    y += wrap_rows(in, y, ROLE_HEADING, line);
    y += wrap_rows(in, y, ROLE_DIM, ep_paths_text(v, line, sizeof line));
    int label = in.w >= 40 ? 8 : 0;
    int shown = r->ep < RING_MAX ? r->ep : RING_MAX;
    /* Room after the ranks for "12 of 36" (or the phase) when it leaves
     * the columns at least two apart. */
    int note = 11, gap = (in.w - label - 2 - note) / (shown > 1 ? shown - 1 : 1);
    if (gap < 2)
        gap = (in.w - label - 2) / (shown > 1 ? shown - 1 : 1);
    gap = gap > 6 ? 6 : gap;
    if (gap < 2 || y + 3 > in.y + in.h)
        return y;
    int half = anim_half(v), x0 = in.x + label + 1;
    if (label) {
        draw_text(y, in.x, label, ROLE_DIM, "ranks");
        draw_text(y + 2, in.x, label, ROLE_DIM, "experts");
    }
    for (int i = 0; i < shown; i++) {
        int x = x0 + i * gap;
        draw_text(y, x, 1, half == 0 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
        draw_text(y + 1, x, 1, ROLE_DIM,
                  half == 0   ? g->arrow_down
                  : half == 1 ? g->arrow_up
                              : g->v);
        draw_text(y + 2, x, 1, half == 1 ? ROLE_FLOW : ROLE_PART_COMPUTE, g->device);
        for (int c = 1; i + 1 < shown && c < gap; c++)
            draw_text(y + 1, x + c, 1, ROLE_DIM, c % 2 ? "\\" : "/");
    }
    int after = x0 + (shown - 1) * gap + 3;
    shown_of(in, y + 1, after, shown, r->ep);
    if (r->ep == shown && half >= 0 && in.x + in.w - after >= (int)strlen("dispatch"))
        draw_text(y + 1, after, in.x + in.w - after, ROLE_DIM, half ? "combine" : "dispatch");
    return y + 3;
}

/* Context parallelism: each rank's K/V block travels once around the ring
 * of CP ranks (ring attention). */
static int pic_cp_ring(const struct view_ctx *v, struct rect in, int y)
{
    const struct model_report *r = v->report;
    const struct glyphs *g = glyphs_active();
    char exp[32], line[192];
    format_duration(exp, sizeof exp, r->breakdown.cp_comm);
    snprintf(line, sizeof line,
             "context parallel CP=%d: K/V blocks passed around the ring, %s exposed per step",
             r->cp, exp);
    y += wrap_rows(in, y, ROLE_HEADING, line);
    int shown = r->cp < RING_MAX ? r->cp : RING_MAX;
    int gap = (in.w - 4) / shown;
    gap = gap > 6 ? 6 : gap;
    if (gap < 3 || y + 2 > in.y + in.h)
        return y;
    int half = anim_half(v), hot = half < 0 ? -1 : (int)fmod(v->wall_s * 3, shown);
    int x = in.x + 1, end = x + shown * gap;
    draw_text(y, x, 1, ROLE_DIM, g->tl);
    draw_text(y + 1, x, 1, ROLE_DIM, g->bl);
    for (int i = 0; i < shown; i++) {
        int cx = x + 1 + i * gap;
        draw_text(y, cx, 1, i == hot ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
        draw_repeat(y, cx + 1, gap - 2, ROLE_DIM, g->track);
        draw_text(y, cx + gap - 1, 1, ROLE_DIM, i + 1 < shown ? g->arrow_right : g->tr);
    }
    draw_repeat(y + 1, x + 1, end - x - 1, ROLE_DIM, g->h);
    draw_text(y + 1, end, 1, ROLE_DIM, g->br);
    shown_of(in, y + 1, end + 2, shown, r->cp);
    return y + 2;
}

static void pic_ring(const struct view_ctx *v, struct view_out *out, struct rect in, int y, int n)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    int shown = n < RING_MAX ? n : RING_MAX;
    if (shown < 2)
        return;
    /* Members on two rows (top left->right, bottom right->left) make a ring. */
    int top = (shown + 1) / 2, bottom = shown - top;
    int gap = (in.w - 4) / (top > 0 ? top : 1);
    if (gap > 8)
        gap = 8;
    if (gap < 2)
        gap = 2;
    bool syncing = view_syncing(v);
    int hot = syncing ? (int)fmod(v->wall_s * 6, shown) : -1;
    for (int i = 0; i < top; i++) {
        draw_text(y, in.x + 2 + i * gap, 1, i == hot ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
        if (i + 1 < top)
            draw_repeat(y, in.x + 3 + i * gap, gap - 1, ROLE_DIM, g->track);
    }
    draw_text(y + 1, in.x + 2 + (top - 1) * gap, 1, ROLE_DIM, g->v);
    draw_text(y + 1, in.x + 2, 1, ROLE_DIM, g->v);
    for (int j = 0; j < bottom; j++) {
        int i = top + j;
        int col = top - 1 - j;
        if (bottom < top)
            col = top - 1 - j; /* keep the right edge aligned */
        draw_text(y + 2, in.x + 2 + col * gap, 1, i == hot ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
        if (j + 1 < bottom || col > 0)
            draw_repeat(y + 2, in.x + 3 + (col - 1) * gap, gap - 1, ROLE_DIM, g->track);
    }
    if (n > shown)
        draw_textf(y + 1, in.x + 4, in.w - 6, ROLE_DIM, "(%d of %d shown)", shown, n);
}

static void pic_tree(const struct view_ctx *v, struct view_out *out, struct rect in, int y)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    bool syncing = view_syncing(v);
    int level = syncing ? (int)fmod(v->wall_s * 3, 3) : -1;
    int cx = in.x + in.w / 2;
    draw_text(y, cx, 1, level == 0 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
    int q = in.w / 4;
    draw_text(y + 1, cx - q, 1, level == 1 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
    draw_text(y + 1, cx + q, 1, level == 1 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
    int e = q / 2;
    for (int i = -1; i <= 1; i += 2)
        for (int j = -1; j <= 1; j += 2)
            draw_text(y + 2, cx + i * q + j * e, 1, level == 2 ? ROLE_FLOW : ROLE_STAGE_MID,
                      g->device);
}

/* Which parallel groups stay on the scale-up fabric (NVLink, ICI) and
 * which cross the NICs. Ranks are laid out as the model lays them out
 * (engine/model: TP innermost, then CP, then EP carved out of DP, then DP,
 * PP outermost): a group of n ranks `stride` apart spans n x stride devices
 * and stays inside when that span fits in the domain. */
static int pic_scaleup(const struct view_ctx *v, struct rect in, int y)
{
    const struct model_report *r = v->report;
    int domain = setup_scaleup_domain(v->setup);
    const char *link = v->res && v->res->intra_link ? v->res->intra_link->head.id : "intra link";
    char line[512];
    if (r->devices <= domain) {
        snprintf(line, sizeof line,
                 "scale-up: all %d devices share one %s domain, no group crosses a NIC", r->devices,
                 link);
        return y + wrap_rows(in, y, ROLE_DIM, line);
    }
    struct {
        const char *name;
        int n;
        long long stride;
    } groups[] = {
        {"TP", r->tp, 1},
        {"CP", r->cp, r->tp},
        {"EP", r->ep, (long long)r->tp * r->cp},
        {"DP", r->dp, (long long)r->tp * r->cp},
        {"PP", r->pp, (long long)r->tp * r->cp * r->dp},
    };
    char inside[128] = "", across[128] = "";
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        int n = groups[i].n;
        long long stride = groups[i].stride > 0 ? groups[i].stride : 1;
        if (n <= 1)
            continue;
        bool in_domain = n * stride <= domain;
        char *to = in_domain ? inside : across;
        size_t used = strlen(to);
        snprintf(to + used, sizeof inside - used, "%s%s %d", used ? ", " : "", groups[i].name, n);
        /* members of a crossing group that still share one domain */
        long long near = domain / stride;
        used = strlen(to);
        if (!in_domain && near > 1)
            snprintf(to + used, sizeof inside - used, " (%lld per domain)", near);
    }
    snprintf(line, sizeof line, "scale-up domain of %d on %s: %s inside; %s across the NICs",
             domain, link, inside[0] ? inside : "no group", across[0] ? across : "no group");
    return y + wrap_rows(in, y, ROLE_DIM, line);
}

/* The data-parallel sync: heading, ring or tree, what each link carries. */
static int pic_dp(const struct view_ctx *v, struct view_out *out, struct rect in, int y)
{
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    char full[32], exp[32];
    format_duration(full, sizeof full, r->stages.dp_comm_s);
    format_duration(exp, sizeof exp, r->breakdown.dp_comm_exposed);
    int algo = s->training.allreduce;
    bool tree = algo == ALLREDUCE_TREE;
    const char *how = tree ? "tree" : algo == ALLREDUCE_HIERARCHICAL ? "hierarchical" : "ring";
    bool zero3 = s->training.zero_stage >= 3;
    /* ZeRO-3 (FSDP) moves weights too: all-gathered for the forward and
     * the backward, gradients reduce-scattered, every micro-batch. */
    /* Gradients are reduced over DP x CP (the context-parallel ranks hold
     * the same weights, engine/model). */
    int n = r->dp * r->cp;
    char group[48], line[256];
    if (r->cp > 1)
        snprintf(group, sizeof group, "DP x CP = %d x %d", r->dp, r->cp);
    else
        snprintf(group, sizeof group, "DP=%d", r->dp);
    if (zero3)
        snprintf(line, sizeof line, "ZeRO-3 over %s: %s, %s exposed", group, full, exp);
    else
        snprintf(line, sizeof line, "%s gradient all-reduce over %s: %s, %s exposed", how, group,
                 full, exp);
    y += wrap_rows(in, y, ROLE_HEADING, line);
    if (n <= 1)
        return y + wrap_rows(in, y, ROLE_DIM, "one data-parallel replica: no gradient all-reduce");
    if (tree)
        pic_tree(v, out, in, y);
    else
        pic_ring(v, out, in, y, n);
    y += 3;
    double share = (n - 1.0) / n;
    if (zero3)
        snprintf(line, sizeof line,
                 "weights+grads: per micro-batch a %s all-gather of the weights, twice, and a "
                 "reduce-scatter of the gradients; each link carries (n-1)/n = %.2fx of each",
                 how, share);
    else
        snprintf(line, sizeof line, "each link carries 2(n-1)/n = %.2fx the gradients", 2 * share);
    y += wrap_rows(in, y, ROLE_DIM, line);
    return y;
}

void pic_net(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    const struct model_report *r = v->report;
    int y = in.y;
    if (r->ep > 1)
        y = pic_experts(v, in, y);
    if (r->cp > 1 && y < in.y + in.h)
        y = pic_cp_ring(v, in, y);
    /* Which groups cross the NICs matters most when some do; one domain
     * holding everything is said after the tensor-parallel line. */
    bool one_domain = r->devices <= setup_scaleup_domain(v->setup);
    if (y < in.y + in.h && !one_domain)
        y = pic_scaleup(v, in, y);
    if (y < in.y + in.h)
        y = pic_dp(v, out, in, y);
    char tp[32];
    format_duration(tp, sizeof tp, r->breakdown.tp_comm);
    draw_textf(y++, in.x, in.w, ROLE_DIM, "tensor parallel TP=%d: %s per step", r->tp, tp);
    if (one_domain && r->devices > 1 && y < in.y + in.h)
        y = pic_scaleup(v, in, y);
    y++;
    if (y >= in.y + in.h)
        return;
    pic_pipeline(v, in, y);
}
