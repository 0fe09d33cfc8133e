/* infer_view: the parts the inference mode's views share (infer_overview.c,
 * infer_pics.c): text that gives way to shorter variants, the serving verdict,
 * the breakdown of a pass and the memory of a device as bars. Every figure
 * comes from the view_ctx's infer_report; nothing here evaluates a model. */
#ifndef MLVIZ_INFER_VIEW_H
#define MLVIZ_INFER_VIEW_H

#include <stdbool.h>

#include "draw.h"
#include "views.h"

enum { INFER_PARTS = 5, INFER_MEM_PARTS = 5 };

/* The first of n variants (longest first) that fits in w columns, else the
 * last one as draw_text clips it (at a whole word). Returns the columns used. */
int infer_fit(int y, int x, int w, enum theme_role role, const char *const *variants, int n);
/* TTFT, TPOT, latency, tokens/s and $/Mtok in the longest form that fits
 * (the overview and the stage views' strip); "cannot serve" without them. */
struct view_ctx;
void view_infer_headline(const struct view_ctx *v, int y, int x, int w);
/* The serving verdict: the decode bottleneck's stage and reason, then
 * prefill's; or "CANNOT SERVE" and why. caps: the stage in capitals
 * (overview) or as its title (stage views). On one row, or on two (the
 * reason wrapped at a word) where rows > 1 and one is too short; returns
 * the rows used. */
int infer_verdict_row(const struct view_ctx *v, int y, int x, int w, bool caps, int rows);
/* The rows (at most `rows`) the verdict takes in w columns. */
int infer_verdict_height(const struct view_ctx *v, int w, int rows);
/* A pass's seconds grouped for a stacked bar: compute (GEMMs), attention,
 * memory traffic (other), overheads (kernels + host), communication. */
void infer_parts(const struct infer_breakdown *b, double parts[INFER_PARTS]);
extern const char *const infer_part_names[INFER_PARTS];
extern const enum theme_role infer_part_roles[INFER_PARTS];
/* One device's memory: weights, KV cache, workspace, reserve, free (GB);
 * returns the capacity the bar is scaled to. */
double infer_memory_parts(const struct infer_report *r, double parts[INFER_MEM_PARTS]);
extern const char *const infer_mem_names[INFER_MEM_PARTS];
extern const enum theme_role infer_mem_roles[INFER_MEM_PARTS];
/* The legend of a stacked bar from x on row y, items kept whole (an item
 * that does not fit is left out); `values` may be NULL (names only). */
void infer_legend(int y, int x, int w, const char *const *names, const enum theme_role *roles,
                  const double *values, const char *unit, int n);

#endif
