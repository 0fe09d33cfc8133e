/* model_gemm: the output write of a GEMM (its epilogue). A Hopper GEMM
 * kernel computes each output tile in a main loop over K and only then
 * writes the tile (the epilogue): in CUTLASS 3's warp-specialized
 * "cooperative" schedule both math warp groups work on one tile and store
 * it after the main loop; only the "pingpong" schedule hides one group's
 * store under the other's math (NVIDIA CUTLASS, sm90 kernel schedules,
 * docs/efficient_gemm.md). The model takes the store as not hidden: the
 * output bytes at the memory bandwidth add to the math time. The output is
 * M x N however long K is, so GEMMs with a short inner dimension (small
 * hidden sizes, expert inner sizes of 768-2048, large tensor-parallel
 * degrees) lose the most: the "arithmetic intensity" that the Megatron-LM
 * README names as the reason its MFU grows from 41% to 48% with model size.
 *
 * The catalog's gemm_efficiency is measured on large GEMMs, whose own
 * output write is already in the measurement: the math rate is scaled so
 * that a GEMM of GEMM_REFERENCE_DIM^3 takes exactly what the catalog says.
 * Formulas: docs/MODEL.md, section 2. Nothing here allocates. */
#include "model_internal.h"

/* The shape public large-GEMM measurements use (8192 x 8192 x 8192). */
#define GEMM_REFERENCE_DIM 8192.0

double model_gemm_with_epilogue(const struct ctx *c, double t_math, double out_elems)
{
    /* The measurement: at full clocks (a power limit or the cooling slows
     * the math after, model_power.c) and with the memory the device had
     * (a what-if with faster memory keeps the math rate it implies). */
    const struct accelerator *a = c->r->accel;
    double rate = c->peak_flops * c->gemm_eff;
    double measured_bw = a->gemm_measured_bw_gbs * a->mem_bw_efficiency * 1e9;
    if (!(measured_bw > 0)) /* an entry not loaded from a catalog file */
        measured_bw = c->mem_bw;
    if (!(t_math > 0) || !(rate > 0) || !(c->mem_bw > 0))
        return t_math;
    double d = GEMM_REFERENCE_DIM;
    double ref_math = 2.0 * d * d * d / rate;
    double ref_store = d * d * c->act_bytes / measured_bw;
    /* The math's part of the measured time; a catalog whose reference GEMM
     * would spend more than half its time storing is taken at half. */
    double share = 1.0 - ref_store / ref_math;
    if (share < 0.5)
        share = 0.5;
    return t_math * share + model_time_for(out_elems * c->act_bytes, c->mem_bw);
}
