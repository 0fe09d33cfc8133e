/* probe: the GPU tools' output, the fixture machines under tests/probe,
 * matching to the shipped catalog and the bounded read test. Expected
 * values are typed from the fixtures and the stub outputs. Tests run from
 * the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "probe.h"

static struct catalog *cat;
static struct probe_machine m;
static struct probe_result res;

static int group_setup(void **state)
{
    (void)state;
    char err[1024];
    cat = catalog_new();
    return cat && catalog_load_dir(cat, "assets/catalog", err, sizeof err) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

static void test_nvidia_smi_csv(void **state)
{
    (void)state;
    char err[256];
    memset(&m, 0, sizeof m);
    assert_true(probe_parse_nvidia_smi(&m,
                                       "NVIDIA H100 80GB HBM3, 81559, 700.00, 5, 16\n"
                                       "NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], [N/A]\n"
                                       "\n",
                                       err, sizeof err));
    assert_int_equal(m.n_gpus, 2);
    assert_string_equal(m.gpus[0].name, "NVIDIA H100 80GB HBM3");
    assert_true(m.gpus[0].mem_gb > 85.52 && m.gpus[0].mem_gb < 85.53); /* 81559 MiB */
    assert_true(m.gpus[0].power_w == 700.0);
    assert_int_equal(m.gpus[0].pcie_gen, 5);
    assert_int_equal(m.gpus[0].pcie_width, 16);
    assert_true(m.gpus[1].power_w == 0.0); /* [N/A]: unknown */
    assert_int_equal(m.gpus[1].pcie_gen, 0);
    assert_string_equal(m.gpu_tool, "nvidia-smi");
    /* A line without a memory column is never a GPU: left out and named
     * beside real ones; alone, the whole answer is refused. */
    memset(&m, 0, sizeof m);
    assert_true(probe_parse_nvidia_smi(&m, "ok, 1\nbroken\n", err, sizeof err));
    assert_int_equal(m.n_gpus, 1);
    assert_non_null(strstr(err, "1 line left out, the first: line 2"));
    memset(&m, 0, sizeof m);
    assert_false(probe_parse_nvidia_smi(&m, "broken\nGPU, [N/A], 300\n", err, sizeof err));
    assert_int_equal(m.n_gpus, 0);
    assert_non_null(strstr(err, "line 1"));
    assert_string_equal(m.gpu_tool, "");
    /* Numbers that parse but no GPU has: named as such, no GPU. */
    memset(&m, 0, sizeof m);
    assert_false(
        probe_parse_nvidia_smi(&m, "GPU, 1e300, 300\nGPU, 1024, 1e-300\n", err, sizeof err));
    assert_int_equal(m.n_gpus, 0);
    assert_non_null(strstr(err, "memory.total 1e+300 MiB is not a GPU's memory"));
    assert_non_null(strstr(err, "2 lines, none a GPU"));
    /* More GPUs than the table holds: the rest are dropped, no overflow. */
    static char many[PROBE_MAX_GPUS * 2 * 48];
    many[0] = '\0';
    for (int i = 0; i < PROBE_MAX_GPUS * 2; i++)
        strcat(many, "NVIDIA H100 80GB HBM3, 81559, 700, 5, 16\n");
    memset(&m, 0, sizeof m);
    assert_true(probe_parse_nvidia_smi(&m, many, err, sizeof err));
    assert_int_equal(m.n_gpus, PROBE_MAX_GPUS);
}

static void test_matching_the_server_fixture(void **state)
{
    (void)state;
    char err[512];
    memset(&m, 0, sizeof m);
    assert_true(
        probe_read_host(&m, "tests/probe/server/proc", "tests/probe/server/sys", err, sizeof err));
    assert_string_equal(m.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
    assert_int_equal(m.sockets, 2);
    assert_int_equal(m.cores_per_socket, 4);
    assert_int_equal(m.threads, 16);
    assert_int_equal(m.mem_channels, 8);
    assert_int_equal(m.n_disks, 1); /* loop0 is skipped */
    assert_string_equal(m.disks[0].name, "nvme0n1");
    assert_int_equal(m.disks[0].pcie_gen, 4);
    assert_true(m.nic_gbps == 400.0); /* lo has no device: not a port */
    assert_true(probe_parse_nvidia_smi(&m, "NVIDIA A100-SXM4-80GB, 81920, 400.00, 4, 16\n", err,
                                       sizeof err));
    assert_true(probe_build(&m, cat, true, &res, err, sizeof err));
    assert_string_equal(res.accel.id, "a100-sxm-80gb");
    assert_true(res.accel.exact);
    assert_string_equal(res.cpu.id, "xeon-8480");
    assert_string_equal(res.storage.id, "nvme-gen4");
    assert_string_equal(res.catalog_yaml, ""); /* every device is in the catalog */
    assert_string_equal(res.setup.cluster.node.host_link, "pcie4-x16");
}

static void test_rocm_smi_cards(void **state)
{
    (void)state;
    char err[256];
    memset(&m, 0, sizeof m);
    assert_true(probe_parse_rocm_smi(
        &m,
        "{\"card0\": {\"Card Series\": \"AMD Instinct MI300X\", \"VRAM Total Memory (B)\": "
        "\"205822885888\", \"Max Graphics Package Power (W)\": \"750.0\"},"
        " \"card1\": {\"Card Series\": \"AMD Instinct MI300X\"}}",
        err, sizeof err));
    assert_int_equal(m.n_gpus, 1); /* card1 has no memory size: not a GPU */
    assert_non_null(strstr(err, "card 2: no VRAM Total Memory"));
    memset(&m, 0, sizeof m);
    assert_false(probe_parse_rocm_smi(&m, "{\"card0\": {\"VRAM Total Memory (B)\": \"1e300\"}}",
                                      err, sizeof err));
    assert_int_equal(m.n_gpus, 0);
    assert_string_equal(m.gpu_tool, "");
}

/* Disks of a VM, by name, NVMe transport and model string; the probed
 * setup names the cloud volume entry, never "hdd". */
static void test_virtual_disks(void **state)
{
    (void)state;
    char err[512];
    memset(&m, 0, sizeof m);
    assert_true(probe_read_host(&m, "tests/probe/vm/proc", "tests/probe/vm/sys", err, sizeof err));
    assert_int_equal(m.n_disks, 1); /* loop0 and zram0 are skipped */
    assert_int_equal(m.disks[0].kind, PROBE_DISK_VIRTUAL);
    assert_string_equal(m.disks[0].virtual_kind, "virtio");
    assert_true(probe_build(&m, cat, false, &res, err, sizeof err));
    assert_string_equal(res.storage.id, "cloud-block");
    assert_null(strstr(res.comments, "HDD"));
    memset(&m, 0, sizeof m);
    assert_true(
        probe_read_host(&m, "tests/probe/cloud/proc", "tests/probe/cloud/sys", err, sizeof err));
    assert_int_equal(m.n_disks, 2);
    assert_string_equal(m.disks[0].virtual_kind, "NVMe over tcp");
    assert_string_equal(m.disks[1].virtual_kind, "Amazon EBS");
}

static void test_missing_proc_names_the_file(void **state)
{
    (void)state;
    char err[512];
    memset(&m, 0, sizeof m);
    assert_false(probe_read_host(&m, "/nonexistent-proc", "/nonexistent-sys", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-proc/cpuinfo"));
}

static void test_read_test_leaves_nothing(void **state)
{
    (void)state;
    char dir[] = "/tmp/mlviz-probe-XXXXXX", err[512];
    assert_non_null(mkdtemp(dir));
    double gbs = 0;
    assert_true(probe_measure_read(dir, &gbs, err, sizeof err));
    assert_true(gbs > 0);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    assert_int_equal(entries, 0);
    rmdir(dir);
    assert_false(probe_measure_read("/nonexistent-dir", &gbs, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-dir"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvidia_smi_csv),
        cmocka_unit_test(test_matching_the_server_fixture),
        cmocka_unit_test(test_rocm_smi_cards),
        cmocka_unit_test(test_virtual_disks),
        cmocka_unit_test(test_missing_proc_names_the_file),
        cmocka_unit_test(test_read_test_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
