/* model_stages: the pipeline stages of a setup: what each holds (layers,
 * MoE layers, parameters, the embedding, the output layer, multi-token
 * prediction modules) and the few worth timing, whose maximum is the
 * slowest stage without a walk over all of them. See docs/MODEL.md,
 * sections 1 and 3. Nothing here allocates. */
#include <string.h>

#include "model.h"
#include "model_internal.h"

void model_make_stage(const struct ctx *c, int index, int first_layer, struct stage *st)
{
    const struct setup *s = c->s;
    memset(st, 0, sizeof *st);
    st->index = index;
    st->first = index == 0;
    st->last = index == c->pp - 1;
    st->first_layer = first_layer;
    if (s->model.kind == MODEL_GENERIC) {
        st->params.dense = s->model.params;
        return;
    }
    st->layers = setup_stage_layers(s, index);
    st->moe_layers = model_moe_layers_in(s, first_layer, st->layers);
    int n_dense = st->layers - st->moe_layers;
    struct layer_params_split p = {n_dense * c->lp.dense_dense + st->moe_layers * c->lp.moe_dense,
                                   st->moe_layers * c->lp.moe_experts};
    double vh = (double)s->model.vocab * s->model.hidden;
    /* One embedding copy per stage that holds it; with a single stage a
     * tied output layer shares it (model_shapes.c). */
    double emb =
        (st->first ? vh : 0.0) + (st->last && (c->pp > 1 || !s->model.tied_embeddings) ? vh : 0.0);
    if (st->last && s->model.mtp_layers > 0) {
        /* Multi-token prediction (DeepSeek-V3, section 2.2): each module is
         * one more layer and a 2h x h projection; it shares the embedding
         * and output layer of the main model. */
        bool moe = s->model.experts > 0;
        double h = s->model.hidden;
        p.dense +=
            s->model.mtp_layers * ((moe ? c->lp.moe_dense : c->lp.dense_dense) + 2.0 * h * h);
        p.experts += s->model.mtp_layers * (moe ? c->lp.moe_experts : 0.0);
    }
    st->params.dense = (p.dense + emb) / c->tp;
    /* MoE parallel folding: experts are split over expert-tensor x expert
     * ranks (Megatron-Core --expert-tensor-parallel-size). */
    st->params.experts = p.experts / ((double)c->etp * c->ep);
}

/* The first middle stage whose layers are all MoE layers, past the
 * dense_layers (the stages before it are lighter); -1 when none. Walks at
 * most dense_layers + 1 stages. */
static int first_moe_stage(const struct ctx *c, int *first_layer)
{
    const struct setup *s = c->s;
    int dense = s->model.dense_layers, layer = 0;
    if (s->model.experts <= 0 || dense <= 0)
        return -1;
    for (int k = 0; k < c->pp - 1; k++) {
        if (layer >= dense) {
            *first_layer = layer;
            return k;
        }
        layer += setup_stage_layers(s, k);
    }
    return -1;
}

/* The stages worth looking at: the first, the second (the first middle one
 * gets the extra layers), the first one past the dense layers of an MoE
 * model, the one before the last, and the last. Their maximum is the
 * slowest or most loaded stage without a walk over all p. */
int model_candidate_stages(const struct ctx *c, struct stage out[MODEL_STAGE_CANDIDATES])
{
    int p = c->pp, n = 0, moe_first = 0;
    int idx[MODEL_STAGE_CANDIDATES] = {0, 1, first_moe_stage(c, &moe_first), p - 2, p - 1};
    int last_first = c->s->model.kind == MODEL_TRANSFORMER ? c->s->model.layers : 0;
    for (int i = 0; i < MODEL_STAGE_CANDIDATES; i++) {
        if (idx[i] < 0 || idx[i] >= p)
            continue;
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen = seen || out[j].index == idx[i];
        if (seen)
            continue;
        int first_layer = 0;
        if (i == 2)
            first_layer = moe_first;
        else if (idx[i] == 1)
            first_layer = setup_stage_layers(c->s, 0);
        else if (idx[i] == p - 1 && p > 1)
            first_layer = last_first - setup_stage_layers(c->s, p - 1);
        else if (idx[i] == p - 2 && p > 2)
            first_layer =
                last_first - setup_stage_layers(c->s, p - 1) - setup_stage_layers(c->s, p - 2);
        model_make_stage(c, idx[i], first_layer, &out[n++]);
    }
    return n;
}
