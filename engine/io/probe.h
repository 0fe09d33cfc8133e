/* probe: the machine mlviz runs on, described as a setup.
 *
 * Reads the CPU model, sockets, cores and memory from procfs (cpuinfo,
 * meminfo), local disks, memory controllers and network links from sysfs,
 * and GPUs from the output of `nvidia-smi --query-gpu=...` or `rocm-smi
 * --json`. The roots of procfs and sysfs are parameters so tests run on
 * fixture trees, never on the test machine's hardware. Devices are matched
 * to catalog ids; a device the catalog lacks gets the closest entry and, on
 * request, a catalog entry of its own (its measured figures, the rest
 * copied from the closest entry and said so in its notes). */
#ifndef MLVIZ_PROBE_H
#define MLVIZ_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "setup.h"

enum { PROBE_MAX_GPUS = 64, PROBE_MAX_DISKS = 32, PROBE_TEXT = 128 };
/* The largest figures a GPU tool's answer may hold: 16 TiB of memory,
 * 10 kW of board power (today's largest are a few hundred GiB and about
 * 1.2 kW). */
enum { PROBE_MAX_GPU_MIB = 16 << 20, PROBE_MAX_GPU_W = 10000 };

struct probe_gpu {
    char name[PROBE_TEXT];
    double mem_gb;  /* 1e9 bytes; 0 unknown */
    double power_w; /* power limit; 0 unknown */
    int pcie_gen;   /* 0 unknown */
    int pcie_width; /* lanes; 0 unknown */
};

/* VIRTUAL: a VM's disk (virtio, Xen, NVMe over a fabric, a cloud volume):
 * its rate is the provider's, not a drive's. */
enum probe_disk_kind { PROBE_DISK_NVME, PROBE_DISK_SSD, PROBE_DISK_VIRTUAL, PROBE_DISK_HDD };

struct probe_disk {
    char name[32];         /* nvme0n1, sda */
    int kind;              /* enum probe_disk_kind */
    char virtual_kind[40]; /* VIRTUAL: "virtio", "Xen", "NVMe over tcp", "Amazon EBS", ... */
    double size_gb;
    int pcie_gen; /* NVMe: from the controller's link speed; 0 unknown */
};

struct probe_machine {
    char cpu_model[PROBE_TEXT];
    int sockets, cores_per_socket, threads;
    int mem_channels; /* populated memory channels per socket; 0 unknown */
    double ram_gb;    /* MemTotal, 1e9 bytes */
    struct probe_disk disks[PROBE_MAX_DISKS];
    size_t n_disks;
    double nic_gbps; /* fastest physical network link, Gbit/s; 0 none found */
    struct probe_gpu gpus[PROBE_MAX_GPUS];
    size_t n_gpus;
    char gpu_tool[16];          /* the tool whose answer was used: "nvidia-smi", "rocm-smi" or "" */
    char gpu_tool_rejected[16]; /* a tool that was found but failed or was not understood */
    double read_gbs;            /* measured sequential read; 0 not measured */
};

/* CPU, memory, disks and network from PROC_ROOT/{cpuinfo,meminfo} and
 * SYS_ROOT/{block,class/net,devices/system/edac}. False (with "PATH:
 * message") only when cpuinfo or meminfo cannot be read. */
bool probe_read_host(struct probe_machine *m, const char *proc_root, const char *sys_root,
                     char *err, size_t err_len);

/* Parse `nvidia-smi --query-gpu=name,memory.total,power.limit,
 * pcie.link.gen.max,pcie.link.width.max --format=csv,noheader,nounits`
 * (memory in MiB; "[N/A]" fields other than the name and memory are
 * unknown). Appends to m->gpus. A line without a name and a plausible
 * memory size is never a GPU: false with the first such line named when no
 * line was a GPU; true with that message in err when some were (err is ""
 * when every line was). Numbers that parse but cannot be a GPU's (memory
 * beyond PROBE_MAX_GPU_MIB, power beyond PROBE_MAX_GPU_W) are named as
 * such. */
bool probe_parse_nvidia_smi(struct probe_machine *m, const char *csv, char *err, size_t err_len);
/* Parse `rocm-smi --showproductname --showmeminfo vram --showmaxpower --json`;
 * a card without a plausible memory size is not a GPU (as above). */
bool probe_parse_rocm_smi(struct probe_machine *m, const char *json, char *err, size_t err_len);
/* The command line each GPU tool is run with (argv, NULL-terminated). */
extern const char *const probe_nvidia_smi_argv[];
extern const char *const probe_rocm_smi_argv[];

/* Sequential read of a scratch file written into DIR: at most
 * PROBE_MEASURE_BYTES, stopping after PROBE_MEASURE_S seconds; the file is
 * removed. GB/s in *gbs. */
enum { PROBE_MEASURE_BYTES = 64 << 20, PROBE_MEASURE_S = 5 };
bool probe_measure_read(const char *dir, double *gbs, char *err, size_t err_len);

struct probe_match {
    char id[FIELD_STR_LEN];      /* the id the setup uses */
    char closest[FIELD_STR_LEN]; /* when not exact: the nearest catalog entry */
    bool exact;
    bool new_entry; /* id names an entry in probe_result.catalog_yaml */
};

enum { PROBE_YAML_LEN = 32768 };

struct probe_result {
    struct setup setup;
    struct probe_match accel, cpu, storage, host_link, nic;
    char comments[4096];               /* "# ..." lines: what was found and matched */
    char catalog_yaml[PROBE_YAML_LEN]; /* entries for devices the catalog lacks ("" none) */
};

/* Build the setup. With new_entries, devices the catalog lacks get entries
 * of their own in out->catalog_yaml and the setup names them; without, the
 * setup names the closest entries (so it loads with the catalog as is). */
bool probe_build(const struct probe_machine *m, const struct catalog *cat, bool new_entries,
                 struct probe_result *out, char *err, size_t err_len);

/* The user catalog's probe.yaml with this machine's entries merged in by
 * id (engine/io/probe_merge.c): fresh_text (probe_result.catalog_yaml)
 * comes first in each section, then the entries of old_text (the file as it
 * is, NULL when there is none; old_name names it in messages) whose ids
 * fresh_text lacks, so probing machine B keeps machine A's entries. The
 * result starts with `header`. False with a message when old_text is not
 * a catalog file or the result does not fit out_len. */
bool probe_merge_catalog(const char *old_name, const char *old_text, size_t old_len,
                         const char *fresh_text, const char *header, char *out, size_t out_len,
                         char *err, size_t err_len);

#endif
