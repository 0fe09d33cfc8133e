/* The shipped catalog's entries for issues 11 and 14, checked against figures
 * written here by hand from the datasheets (and, for memory, the totals
 * nvidia-smi / rocm-smi report), plus the loader rules for device memory.
 *
 * Memory: datasheets write "80GB" and mean binary units. The catalog keeps
 * GiB (mem_gib) and derives mem_gb = bytes / 1e9, which is what the model
 * computes with; the expected byte counts below are MiB x 2^20.
 *
 * Formats: every Hopper and Blackwell part has an FP8 matrix path; only
 * Blackwell-generation parts (and CDNA 4) have FP4; TPU v5p and v6e have no
 * FP8 path (v5p's listed FP8 rate is its BF16 rate).
 *
 * Tests run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CATALOG_FIXTURE_NO_GROUP /* its functions name their own cat */
#include "../../catalog_fixture.h"
#include "catalog.h"

#define MIB 1048576.0
#define GIB 1073741824.0

static int setup(void **state)
{
    struct catalog *shipped = catalog_fixture_load();
    *state = shipped;
    return shipped ? 0 : -1;
}

static int teardown(void **state)
{
    catalog_free(*state);
    return 0;
}

static bool near(double got, double want)
{
    return fabs(got - want) <= 1e-3 * fabs(want) + 1e-9;
}

/* ------------------------------------------------------------ accelerators */

#define NONE (-1.0) /* no matrix path for the format */

static const struct {
    const char *id;
    int kind;
    double mem_bytes; /* as the device reports it */
    double mem_bw_gbs;
    double bf16, fp8, fp4; /* dense TFLOP/s; fp4 0 = no FP4 path */
    double tdp_w;
    const char *link;
} expected[] = {
    /* H800 datasheet: the H100 SXM die, NVLink 400 GB/s; nvidia-smi 81559 MiB. */
    {"h800", ACCEL_GPU, 81559 * MIB, 3350, 989.5, 1979, 0, 700, "nvlink4-h800"},
    /* H20: BF16 148, FP8 296 dense, 96 GB HBM3 at 4.0 TB/s, 400 W; 97871 MiB. */
    {"h20", ACCEL_GPU, 97871 * MIB, 4000, 148, 296, 0, 400, "nvlink4"},
    /* HGX B300: 36 / 72 PF sparse BF16 / FP8 and 108 PF dense FP4 per 8 GPUs;
     * 275040 MiB. */
    {"b300", ACCEL_GPU, 275040 * MIB, 8000, 36000.0 / 8 / 2, 72000.0 / 8 / 2, 108000.0 / 8, 1100,
     "nvlink5"},
    /* GB200 NVL72: 360 / 720 / 1,440 PF sparse BF16 / FP8 / FP4 over 72 GPUs,
     * 576 TB/s of HBM; 189471 MiB, 1,200 W. */
    {"gb200", ACCEL_GPU, 189471 * MIB, 576000.0 / 72, 360000.0 / 72 / 2, 720000.0 / 72 / 2,
     1440000.0 / 72 / 2, 1200, "nvlink5"},
    /* GB300 NVL72: 1,080 PF dense FP4, 360 PF dense FP8 over 72; 284208 MiB. */
    {"gb300", ACCEL_GPU, 284208 * MIB, 8000, 180000.0 / 72, 360000.0 / 72, 1080000.0 / 72, 1400,
     "nvlink5"},
    /* MI325X: MI300X compute, 256 GB HBM3E at 6 TB/s, 1000 W. */
    {"mi325x", ACCEL_GPU, 256 * GIB, 6000, 1307.4, 2614.9, 0, 1000, "infinity-fabric-mi300x"},
    /* MI355X: 256 CUs x 8192 FP8 flop/clock x 2.4 GHz; BF16 half, MXFP4 double. */
    {"mi355x", ACCEL_GPU, 288 * GIB, 8000, 256 * 8192 * 2.4e9 / 2 / 1e12, 256 * 8192 * 2.4e9 / 1e12,
     256 * 8192 * 2.4e9 * 2 / 1e12, 1400, "infinity-fabric-mi355x"},
    /* Cloud TPU v6e: 918 BF16, 32 GB, 1638 GB/s; no FP8. */
    {"tpu-v6e", ACCEL_TPU, 32 * GIB, 1638, 918, NONE, 0, 300, "tpu-ici-v6e"},
    /* GeForce: tensor rates with FP32 accumulate (half the FP16-accumulate ones). */
    {"rtx-3090", ACCEL_GPU, 24576 * MIB, 936, 71, NONE, 0, 350, "pcie4-x16"},
    {"rtx-4090", ACCEL_GPU, 24564 * MIB, 1008, 165.2, 330.3, 0, 450, "pcie4-x16"},
    {"rtx-5090", ACCEL_GPU, 32607 * MIB, 1792, 209.5, 419, 3352.0 / 2, 575, "pcie5-x16"},
    /* RTX 6000 Ada: 1,457 TFLOPS FP8 with sparsity; 49140 MiB. */
    {"rtx-6000-ada", ACCEL_GPU, 49140 * MIB, 960, 1457.0 / 4, 1457.0 / 2, 0, 300, "pcie4-x16"},
    {"l40s", ACCEL_GPU, 46068 * MIB, 864, 362.05, 733, 0, 350, "pcie4-x16"},
    {"l4", ACCEL_GPU, 23034 * MIB, 300, 121, 242.5, 0, 72, "pcie4-x16"},
    /* Apple: unified memory, no matrix units; M2 Max 13.6 TFLOP/s. */
    {"apple-m2-max-gpu", ACCEL_GPU, 96 * GIB, 400, 13.6, NONE, 0, 60, ""},
    {"apple-m3-max-gpu", ACCEL_GPU, 128 * GIB, 400, 14.1, NONE, 0, 60, ""},
    {"apple-m4-max-gpu", ACCEL_GPU, 128 * GIB, 546, 16.2, NONE, 0, 70, ""},
    /* Published-runs F: the binary capacities of the parts most runs use. */
    {"a100-sxm-80gb", ACCEL_GPU, 81920 * MIB, 2039, 312, NONE, 0, 400, "nvlink3"},
    {"h100-sxm", ACCEL_GPU, 81559 * MIB, 3350, 989.5, 1979, 0, 700, "nvlink4"},
    {"h200-sxm", ACCEL_GPU, 143771 * MIB, 4800, 989.5, 1979, 0, 700, "nvlink4"},
    {"b200", ACCEL_GPU, 183359 * MIB, 8000, 2250, 4500, 9000, 1000, "nvlink5"},
};

static void test_new_accelerators_match_datasheets(void **state)
{
    const struct catalog *cat = *state;
    int bad = 0;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const struct accelerator *a = catalog_accelerator(cat, expected[i].id);
        if (!a) {
            print_error("accelerator '%s' is missing\n", expected[i].id);
            bad++;
            continue;
        }
        const double fp8 = a->peak_tflops[PREC_FP8] > 0 ? a->peak_tflops[PREC_FP8] : NONE;
        bool ok =
            a->kind == expected[i].kind && near(a->mem_gb, expected[i].mem_bytes / 1e9) &&
            near(a->mem_gib, expected[i].mem_bytes / GIB) &&
            near(a->mem_bw_gbs, expected[i].mem_bw_gbs) &&
            near(a->peak_tflops[PREC_BF16], expected[i].bf16) &&
            (expected[i].fp8 == NONE ? fp8 == NONE : near(fp8, expected[i].fp8)) &&
            (expected[i].fp4 == 0 ? a->fp4_tflops == 0 : near(a->fp4_tflops, expected[i].fp4)) &&
            near(a->tdp_w, expected[i].tdp_w) && strcmp(a->link, expected[i].link) == 0 &&
            a->head.source[0] != '\0';
        if (!ok) {
            print_error("%s: got mem %.4g GB (%.4g GiB), %g GB/s, bf16 %g, fp8 %g, fp4 %g, %g W, "
                        "link '%s'; want mem %.4g GB, %g GB/s, bf16 %g, fp8 %g, fp4 %g, %g W, "
                        "link '%s'\n",
                        expected[i].id, a->mem_gb, a->mem_gib, a->mem_bw_gbs,
                        a->peak_tflops[PREC_BF16], fp8, a->fp4_tflops, a->tdp_w, a->link,
                        expected[i].mem_bytes / 1e9, expected[i].mem_bw_gbs, expected[i].bf16,
                        expected[i].fp8, expected[i].fp4, expected[i].tdp_w, expected[i].link);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static bool in_list(const char *id, const char *const *ids)
{
    for (size_t i = 0; ids[i]; i++)
        if (strcmp(ids[i], id) == 0)
            return true;
    return false;
}

/* Hopper and Blackwell all have FP8; FP4 exists on exactly the Blackwell
 * generation (data-centre and GeForce) and CDNA 4, nowhere else. */
static void test_low_precision_formats_by_generation(void **state)
{
    const struct catalog *cat = *state;
    static const char *const hopper_blackwell[] = {
        "h100-sxm", "h100-pcie", "h200-sxm", "gh200", "h800",     "h20",
        "b200",     "b300",      "gb200",    "gb300", "rtx-5090", NULL,
    };
    static const char *const with_fp4[] = {"b200",     "b300",   "gb200", "gb300",
                                           "rtx-5090", "mi355x", NULL};
    static const char *const without_fp8[] = {"tpu-v4",        "tpu-v5e",  "tpu-v5p", "tpu-v6e",
                                              "a100-sxm-80gb", "rtx-3090", "mi250x",  NULL};
    int bad = 0;
    for (size_t i = 0; hopper_blackwell[i]; i++) {
        const struct accelerator *a = catalog_accelerator(cat, hopper_blackwell[i]);
        if (!a || !(a->peak_tflops[PREC_FP8] > 0)) {
            print_error("%s: needs an FP8 peak\n", hopper_blackwell[i]);
            bad++;
        }
    }
    for (size_t i = 0; without_fp8[i]; i++) {
        const struct accelerator *a = catalog_accelerator(cat, without_fp8[i]);
        if (!a || a->peak_tflops[PREC_FP8] > 0) {
            print_error("%s: has no FP8 matrix path, but the catalog gives one\n", without_fp8[i]);
            bad++;
        }
    }
    size_t n = catalog_count(cat, CATALOG_ACCELERATOR), fp4_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const struct accelerator *a = catalog_entry(cat, CATALOG_ACCELERATOR, i);
        bool want = in_list(a->head.id, with_fp4);
        fp4_seen += want;
        if (want ? !(a->fp4_tflops > 0) : a->fp4_tflops != 0) {
            print_error("%s: fp4_tflops %g, expected %s\n", a->head.id, a->fp4_tflops,
                        want ? "a figure" : "none (0)");
            bad++;
        }
        /* FP4 is always faster than FP8 where both exist. */
        if (a->fp4_tflops > 0 && !(a->fp4_tflops > a->peak_tflops[PREC_FP8])) {
            print_error("%s: fp4 %g not above fp8\n", a->head.id, a->fp4_tflops);
            bad++;
        }
    }
    assert_int_equal(fp4_seen, 6);
    /* Apple silicon computes out of the host's own RAM; discrete cards do not. */
    static const char *const unified[] = {"apple-m2-max-gpu", "apple-m3-max-gpu",
                                          "apple-m4-max-gpu", NULL};
    for (size_t i = 0; i < n; i++) {
        const struct accelerator *a = catalog_entry(cat, CATALOG_ACCELERATOR, i);
        if (a->kind == ACCEL_GPU && a->unified_memory != in_list(a->head.id, unified)) {
            print_error("%s: unified_memory %d\n", a->head.id, a->unified_memory);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------- links, cpus */

static void test_new_links_and_cpus(void **state)
{
    const struct catalog *cat = *state;
    static const struct {
        const char *id;
        double bw_gbs; /* per direction */
        int domain;
    } links[] = {
        {"nvlink5", 1800.0 / 2, 72},                  /* NVL72: 72 GPUs, 1.8 TB/s summed each */
        {"nvlink-c2c", 900.0 / 2, 0},                 /* Grace <-> GPU, 900 GB/s summed */
        {"nvlink4-h800", 400.0 / 2, 8},               /* H800: NVLink 400 GB/s summed */
        {"tpu-ici-v6e", 800.0 / 2, 256},              /* v6e doc: 800 GBps bidirectional, pod 256 */
        {"infinity-fabric-mi355x", 7 * 153.6 / 2, 8}, /* 7 links of 153.6 GB/s summed */
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        const struct link *l = catalog_link(cat, links[i].id);
        if (!l || !near(l->bw_gbs, links[i].bw_gbs) || l->domain_max_devices != links[i].domain) {
            print_error("link %s: got %g GB/s, domain %d; want %g, %d\n", links[i].id,
                        l ? l->bw_gbs : -1, l ? l->domain_max_devices : -1, links[i].bw_gbs,
                        links[i].domain);
            bad++;
        }
    }
    static const struct {
        const char *id;
        int cores, lanes;
        double mem_bw_gbs; /* 2 channels x MT/s x 8 bytes */
    } cpus[] = {
        {"ryzen-9-7950x", 16, 24, 2 * 5200 * 8 / 1e3},
        {"core-i9-14900k", 24, 20, 2 * 5600 * 8 / 1e3},
        {"ryzen-7-7840u", 8, 20, 128 / 8 * 7500 / 1e3}, /* LPDDR5X-7500 on 128 bits */
    };
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
        const struct cpu *c = catalog_cpu(cat, cpus[i].id);
        if (!c || c->cores != cpus[i].cores || c->pcie_lanes != cpus[i].lanes ||
            !near(c->mem_bw_gbs, cpus[i].mem_bw_gbs)) {
            print_error("cpu %s differs from its datasheet\n", cpus[i].id);
            bad++;
        }
    }
    /* Every accelerator's link exists (the new ones included). */
    for (size_t i = 0; i < catalog_count(cat, CATALOG_ACCELERATOR); i++) {
        const struct accelerator *a = catalog_entry(cat, CATALOG_ACCELERATOR, i);
        if (a->link[0] && !catalog_link(cat, a->link)) {
            print_error("%s names unknown link %s\n", a->head.id, a->link);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ loader rules */

/* Loads one accelerator written with the given memory lines. */
static bool load_one(const char *memory_lines, struct catalog *cat, char *err, size_t err_len)
{
    char path[] = "/tmp/mlviz-catalog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f,
            "accelerators:\n"
            "  - id: test-gpu\n"
            "    name: Test GPU\n"
            "    source: test\n"
            "    kind: gpu\n"
            "%s"
            "    mem_bw_gbs: 1000\n"
            "    bf16_tflops: 100\n"
            "    tdp_w: 300\n"
            "    idle_w: 30\n"
            "    compute_units: 100\n",
            memory_lines);
    fclose(f);
    bool ok = catalog_load_file(cat, path, err, err_len);
    unlink(path);
    return ok;
}

static void test_memory_is_given_once_and_derived(void **state)
{
    (void)state;
    char err[512];
    struct catalog *cat = catalog_new();
    assert_non_null(cat);

    assert_true(load_one("    mem_gib: 80\n", cat, err, sizeof err));
    const struct accelerator *a = catalog_accelerator(cat, "test-gpu");
    assert_non_null(a);
    assert_true(near(a->mem_gb, 85.899345920)); /* 80 x 2^30 / 1e9 */
    assert_true(a->fp4_tflops == 0);            /* absent: no FP4 path */

    assert_true(load_one("    mem_gb: 100\n    fp4_tflops: 400\n", cat, err, sizeof err));
    a = catalog_accelerator(cat, "test-gpu");
    assert_true(near(a->mem_gb, 100) && near(a->mem_gib, 93.132257462));
    assert_true(near(a->fp4_tflops, 400));

    assert_false(load_one("    mem_gib: 80\n    mem_gb: 85.9\n", cat, err, sizeof err));
    assert_non_null(strstr(err, "exactly one"));
    assert_non_null(strstr(err, "/tmp/mlviz-catalog-"));
    assert_false(load_one("", cat, err, sizeof err));
    assert_non_null(strstr(err, "mem_gib"));
    assert_false(load_one("    mem_gib: 0\n", cat, err, sizeof err));
    assert_false(load_one("    mem_gib: 80\n    fp4_tflops: -1\n", cat, err, sizeof err));
    assert_false(load_one("    mem_gib: 80\n    fp4_tflops: nan\n", cat, err, sizeof err));
    assert_false(load_one("    mem_gib: 80\n    fp4_tflops: 1e-6\n", cat, err, sizeof err));
    assert_non_null(strstr(err, "fp4_tflops"));
    catalog_free(cat);
}

/* The lowest sustained clock: stored where published (Hopper's lowest DVFS
 * state), refused above the boost clock or without one, with the place. */
static void test_min_clock(void **state)
{
    const struct catalog *shipped = *state;
    char err[512];
    const struct accelerator *h100 = catalog_accelerator(shipped, "h100-sxm");
    assert_non_null(h100);
    assert_true(near(h100->min_clock_mhz, 345) && h100->boost_clock_mhz == 1980);
    struct catalog *cat = catalog_new();
    assert_non_null(cat);
    assert_true(load_one("    mem_gib: 80\n    boost_clock_mhz: 1500\n    min_clock_mhz: 300\n",
                         cat, err, sizeof err));
    assert_true(near(catalog_accelerator(cat, "test-gpu")->min_clock_mhz, 300));
    assert_false(load_one("    mem_gib: 80\n    boost_clock_mhz: 1500\n    min_clock_mhz: 1600\n",
                          cat, err, sizeof err));
    assert_non_null(strstr(err, "min_clock_mhz"));
    assert_non_null(strstr(err, "/tmp/mlviz-catalog-"));
    assert_false(load_one("    mem_gib: 80\n    min_clock_mhz: 300\n", cat, err, sizeof err));
    assert_non_null(strstr(err, "boost_clock_mhz"));
    catalog_free(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_min_clock),
        cmocka_unit_test(test_new_accelerators_match_datasheets),
        cmocka_unit_test(test_low_precision_formats_by_generation),
        cmocka_unit_test(test_new_links_and_cpus),
        cmocka_unit_test(test_memory_is_given_once_and_derived),
    };
    return cmocka_run_group_tests_name("catalog_entries", tests, setup, teardown);
}
