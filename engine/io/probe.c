/* probe: reading this machine's hardware and matching it to the catalog. */
#define _GNU_SOURCE /* O_TMPFILE (Linux): the read test's file never has a name */
#include "probe.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "infile.h"
#include "probe_internal.h"
#include "yamldoc.h"

const char *const probe_nvidia_smi_argv[] = {
    "nvidia-smi", "--query-gpu=name,memory.total,power.limit,pcie.link.gen.max,pcie.link.width.max",
    "--format=csv,noheader,nounits", NULL};
const char *const probe_rocm_smi_argv[] = {
    "rocm-smi", "--showproductname", "--showmeminfo", "vram", "--showmaxpower", "--json", NULL};

/* ---- small text helpers ------------------------------------------------------ */

/* Copies text that came from the machine: printable ASCII only, trimmed. */
void probe_copy_clean(char *dst, size_t len, const char *src, size_t n)
{
    while (n > 0 && isspace((unsigned char)*src))
        src++, n--;
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        n--;
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < len; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[j++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
    }
    dst[j] = '\0';
}

/* A small sysfs/procfs file's first line, or false. */
static bool read_line(const char *path, char *buf, size_t len)
{
    char *text, err[256];
    size_t n;
    if (!infile_read(path, &text, &n, err, sizeof err))
        return false;
    size_t line = strcspn(text, "\n");
    probe_copy_clean(buf, len, text, line);
    free(text);
    return true;
}

static bool read_number(const char *path, double *v)
{
    char buf[64];
    char *end;
    if (!read_line(path, buf, sizeof buf) || !buf[0])
        return false;
    *v = strtod(buf, &end);
    return end != buf && isfinite(*v);
}

/* ---- procfs: CPU and memory ----------------------------------------------- */

/* A set of (physical id, core id) pairs, open addressing: each line of
 * cpuinfo costs O(1), so a file of any length is read in linear time. */
enum { PAIR_SLOTS = 1 << 17, MAX_PAIRS = PAIR_SLOTS / 2 };
struct pair_set {
    long key[PAIR_SLOTS][2];
    bool used[PAIR_SLOTS];
    size_t count;
};

/* Adds (a, b) unless present or the set is full. */
static void pair_add(struct pair_set *set, long a, long b)
{
    unsigned long h = ((unsigned long)a * 0x9E3779B97F4A7C15ul) ^ (unsigned long)b;
    h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ul;
    for (size_t i = (size_t)(h ^ (h >> 32)) & (PAIR_SLOTS - 1);; i = (i + 1) & (PAIR_SLOTS - 1)) {
        if (!set->used[i]) {
            if (set->count >= MAX_PAIRS)
                return; /* half full at most: probes stay short */
            set->used[i] = true;
            set->key[i][0] = a;
            set->key[i][1] = b;
            set->count++;
            return;
        }
        if (set->key[i][0] == a && set->key[i][1] == b)
            return;
    }
}

/* "key : value" lines of /proc/cpuinfo. Sockets are the distinct physical
 * ids, cores the distinct (physical id, core id) pairs. */
static void parse_cpuinfo(struct probe_machine *m, const char *text)
{
    static struct pair_set cores, sockets;
    memset(&cores, 0, sizeof cores);
    memset(&sockets, 0, sizeof sockets);
    long phys = -1;
    int processors = 0;
    const char *line = text;
    while (*line) {
        size_t n = strcspn(line, "\n");
        const char *colon = memchr(line, ':', n);
        if (colon) {
            char key[64], value[PROBE_TEXT];
            probe_copy_clean(key, sizeof key, line, (size_t)(colon - line));
            probe_copy_clean(value, sizeof value, colon + 1, n - (size_t)(colon - line) - 1);
            if (strcmp(key, "processor") == 0) {
                processors += processors < INT_MAX;
                phys = -1;
            } else if ((strcmp(key, "model name") == 0 || strcmp(key, "Model") == 0 ||
                        strcmp(key, "cpu model") == 0) &&
                       !m->cpu_model[0]) {
                snprintf(m->cpu_model, sizeof m->cpu_model, "%s", value);
            } else if (strcmp(key, "physical id") == 0) {
                phys = strtol(value, NULL, 10);
                pair_add(&sockets, phys, 0);
            } else if (strcmp(key, "core id") == 0) {
                pair_add(&cores, phys, strtol(value, NULL, 10));
            }
        }
        line += n + (line[n] == '\n');
    }
    m->threads = processors > 0 ? processors : 1;
    m->sockets = sockets.count > 0 ? (int)sockets.count : 1;
    int n_cores = cores.count > 0 ? (int)cores.count : m->threads;
    m->cores_per_socket = n_cores / m->sockets > 0 ? n_cores / m->sockets : 1;
    if (!m->cpu_model[0])
        snprintf(m->cpu_model, sizeof m->cpu_model, "unknown CPU");
}

/* Directory entries, sorted, so every run lists them in the same order. */
static size_t list_dir(const char *path, char names[][64], size_t max)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len >= 64)
            continue;
        memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, n, 64, (int (*)(const void *, const void *))strcmp);
    return n;
}

bool probe_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* True when haystack holds needle, ignoring ASCII case. */
static bool contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0)
            return true;
    return false;
}

/* A VM's disk, by its name (virtio vdX, Xen xvdX), the transport of its
 * NVMe controller (tcp, rdma, fc: NVMe over a fabric) or the model string
 * cloud and hypervisor disks report; what it is goes to kind. The kernel
 * often calls such disks rotational, so this is asked first. */
static bool virtual_disk(const char *sys, const char *name, char *kind, size_t len)
{
    static const char *const models[][2] = {
        {"Elastic Block Store", "Amazon EBS"},      {"PersistentDisk", "Google persistent disk"},
        {"nvme_card-pd", "Google persistent disk"}, {"Virtual Disk", "hypervisor virtual disk"},
        {"QEMU HARDDISK", "QEMU virtual disk"},     {"VBOX HARDDISK", "VirtualBox virtual disk"},
        {"Virtual disk", "hypervisor virtual disk"}};
    char path[1200], text[128];
    if (probe_starts_with(name, "vd") || probe_starts_with(name, "xvd")) {
        snprintf(kind, len, "%s", name[0] == 'v' ? "virtio" : "Xen");
        return true;
    }
    snprintf(path, sizeof path, "%s/block/%.63s/device/transport", sys, name);
    if (read_line(path, text, sizeof text) && text[0] && strcmp(text, "pcie") != 0) {
        snprintf(kind, len, "NVMe over %.20s", text);
        return true;
    }
    snprintf(path, sizeof path, "%s/block/%.63s/device/model", sys, name);
    if (!read_line(path, text, sizeof text))
        return false;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (contains_nocase(text, models[i][0])) {
            snprintf(kind, len, "%s", models[i][1]);
            return true;
        }
    return false;
}

/* Local disks: SYS/block/NAME with queue/rotational and size (512-byte
 * sectors). Loop, RAM, device-mapper, optical and zram devices are skipped. */
static void read_disks(struct probe_machine *m, const char *sys)
{
    static char names[256][64];
    char path[1200];
    snprintf(path, sizeof path, "%s/block", sys);
    size_t n = list_dir(path, names, 256);
    for (size_t i = 0; i < n && m->n_disks < PROBE_MAX_DISKS; i++) {
        const char *name = names[i];
        if (probe_starts_with(name, "loop") || probe_starts_with(name, "ram") ||
            probe_starts_with(name, "dm-") || probe_starts_with(name, "sr") ||
            probe_starts_with(name, "zram") || probe_starts_with(name, "md") ||
            probe_starts_with(name, "fd"))
            continue;
        double sectors = 0, rotational = 0, removable = 0;
        snprintf(path, sizeof path, "%s/block/%.63s/size", sys, name);
        if (!read_number(path, &sectors) || sectors <= 0)
            continue;
        snprintf(path, sizeof path, "%s/block/%.63s/removable", sys, name);
        if (read_number(path, &removable) && removable != 0)
            continue;
        snprintf(path, sizeof path, "%s/block/%.63s/queue/rotational", sys, name);
        read_number(path, &rotational);
        struct probe_disk *d = &m->disks[m->n_disks++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%.31s", name);
        d->size_gb = sectors * 512.0 / 1e9;
        d->kind = probe_starts_with(name, "nvme") ? PROBE_DISK_NVME
                  : rotational != 0               ? PROBE_DISK_HDD
                                                  : PROBE_DISK_SSD;
        if (virtual_disk(sys, name, d->virtual_kind, sizeof d->virtual_kind))
            d->kind = PROBE_DISK_VIRTUAL;
        if (d->kind == PROBE_DISK_NVME) {
            /* "16.0 GT/s PCIe": 8 GT/s is gen 3, 16 gen 4, 32 gen 5. */
            char speed[64];
            snprintf(path, sizeof path, "%s/block/%.63s/device/device/current_link_speed", sys,
                     name);
            if (read_line(path, speed, sizeof speed)) {
                double gts = strtod(speed, NULL);
                d->pcie_gen = gts >= 60 ? 6 : gts >= 30 ? 5 : gts >= 15 ? 4 : gts >= 7 ? 3 : 0;
            }
        }
    }
}

/* The fastest physical network port (SYS/class/net/X/device exists;
 * speed in Mbit/s, -1 or unreadable when the link is down). */
static void read_network(struct probe_machine *m, const char *sys)
{
    static char names[256][64];
    char path[1200];
    snprintf(path, sizeof path, "%s/class/net", sys);
    size_t n = list_dir(path, names, 256);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/class/net/%s/device", sys, names[i]);
        if (stat(path, &st) != 0)
            continue;
        double mbits = 0;
        snprintf(path, sizeof path, "%s/class/net/%s/speed", sys, names[i]);
        if (read_number(path, &mbits) && mbits > 0 && mbits < 1e7 && mbits / 1000 > m->nic_gbps)
            m->nic_gbps = mbits / 1000;
    }
}

/* Memory channels where the kernel's EDAC driver lists them: the DIMMs
 * of memory controller mc0 (one controller per socket on most servers). */
static void read_memory_channels(struct probe_machine *m, const char *sys)
{
    static char names[256][64];
    char path[1200];
    snprintf(path, sizeof path, "%s/devices/system/edac/mc/mc0", sys);
    size_t n = list_dir(path, names, 256);
    int dimms = 0;
    for (size_t i = 0; i < n; i++)
        if (probe_starts_with(names[i], "dimm") || probe_starts_with(names[i], "rank"))
            dimms++;
    m->mem_channels = dimms > 64 ? 64 : dimms;
}

bool probe_read_host(struct probe_machine *m, const char *proc_root, const char *sys_root,
                     char *err, size_t err_len)
{
    char path[1200], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/cpuinfo", proc_root);
    if (!infile_read(path, &text, &len, err, err_len))
        return false;
    parse_cpuinfo(m, text);
    free(text);
    snprintf(path, sizeof path, "%s/meminfo", proc_root);
    if (!infile_read(path, &text, &len, err, err_len))
        return false;
    const char *total = strstr(text, "MemTotal:");
    double kb = total ? strtod(total + 9, NULL) : 0;
    free(text);
    if (!(kb > 0) || !isfinite(kb) || kb > 1e13) {
        snprintf(err, err_len, "%s: no MemTotal line", path);
        return false;
    }
    m->ram_gb = kb * 1024.0 / 1e9;
    read_disks(m, sys_root);
    read_network(m, sys_root);
    read_memory_channels(m, sys_root);
    return true;
}

/* ---- GPU tools ------------------------------------------------------------------ */

static double field_number(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    while (*end == ' ')
        end++;
    return end != text && *end == '\0' && isfinite(v) && v > 0 && v < 1e15 ? v : 0.0;
}

/* What a column of a tool's answer holds. */
enum column { COL_NUMBER, COL_UNKNOWN, COL_GARBLED };

/* A number column: "[N/A]" or empty is unknown; anything else must be a
 * whole finite number. */
static enum column column_number(const char *text, double *v)
{
    text += strspn(text, " ");
    char *end;
    *v = strtod(text, &end);
    while (*end == ' ')
        end++;
    if (end != text && *end == '\0' && isfinite(*v))
        return COL_NUMBER;
    *v = 0;
    return !text[0] || probe_starts_with(text, "[N/A]") || probe_starts_with(text, "N/A")
               ? COL_UNKNOWN
               : COL_GARBLED;
}

/* Checks one line's name, memory and power; "" when it is a GPU, else why
 * not in why. */
static void check_gpu_line(char *const cols[], int k, struct probe_gpu *g, char *why, size_t len)
{
    double mib = 0, watts = 0;
    why[0] = '\0';
    probe_copy_clean(g->name, sizeof g->name, k > 0 ? cols[0] : "", k > 0 ? strlen(cols[0]) : 0);
    if (k < 2 || !g->name[0]) {
        snprintf(why, len, "not \"name, memory.total, power.limit, ...\"");
        return;
    }
    enum column mem = column_number(cols[1], &mib);
    enum column power = k > 2 ? column_number(cols[2], &watts) : COL_UNKNOWN;
    if (mem != COL_NUMBER || power == COL_GARBLED)
        snprintf(why, len, "%s is not a number",
                 mem != COL_NUMBER ? "memory.total" : "power.limit");
    else if (!(mib >= 1 && mib <= PROBE_MAX_GPU_MIB))
        snprintf(why, len, "memory.total %.6g MiB is not a GPU's memory (1 MiB to 16 TiB)", mib);
    else if (power == COL_NUMBER && !(watts >= 1 && watts <= PROBE_MAX_GPU_W))
        snprintf(why, len, "power.limit %.6g W is not a GPU's power limit (1 W to %d W)", watts,
                 PROBE_MAX_GPU_W);
    g->mem_gb = mib * 1048576.0 / 1e9;
    g->power_w = watts;
}

/* Counts the lines that were not GPUs and keeps the first one's reason. */
struct rejects {
    int count, first_line;
    char first[160];
};

static void reject(struct rejects *r, int line_no, const char *why)
{
    if (r->count++ == 0) {
        r->first_line = line_no;
        snprintf(r->first, sizeof r->first, "%s", why);
    }
}

/* The parsers' verdict: false when lines were rejected and none was a GPU;
 * otherwise true, with the rejected lines (if any) said in err. */
static bool rejects_verdict(const struct rejects *r, const char *what, size_t gpus, char *err,
                            size_t err_len)
{
    err[0] = '\0';
    if (r->count == 0)
        return true;
    if (gpus > 0)
        snprintf(err, err_len, "%d %s%s left out, the first: %s %d: %s", r->count, what,
                 r->count == 1 ? "" : "s", what, r->first_line, r->first);
    else
        snprintf(err, err_len, "%s %d: %s (%d %s%s, none a GPU)", what, r->first_line, r->first,
                 r->count, what, r->count == 1 ? "" : "s");
    return gpus > 0;
}

bool probe_parse_nvidia_smi(struct probe_machine *m, const char *csv, char *err, size_t err_len)
{
    int line_no = 0;
    size_t found = 0;
    struct rejects bad = {0};
    const char *line = csv;
    while (*line) {
        size_t n = strcspn(line, "\n");
        line_no++;
        char buf[512], why[160];
        probe_copy_clean(buf, sizeof buf, line, n < sizeof buf ? n : sizeof buf - 1);
        line += n + (line[n] == '\n');
        if (!buf[0])
            continue;
        char *cols[5];
        int k = 0;
        char *save, *tok = strtok_r(buf, ",", &save);
        for (; tok && k < 5; tok = strtok_r(NULL, ",", &save))
            cols[k++] = tok;
        struct probe_gpu g;
        memset(&g, 0, sizeof g);
        check_gpu_line(cols, k, &g, why, sizeof why);
        if (why[0]) {
            reject(&bad, line_no, why);
            continue;
        }
        double gen = 0, width = 0;
        if (k > 3 && column_number(cols[3], &gen) == COL_NUMBER && gen >= 1 && gen <= 8)
            g.pcie_gen = (int)gen;
        if (k > 4 && column_number(cols[4], &width) == COL_NUMBER && width >= 1 && width <= 32)
            g.pcie_width = (int)width;
        found++;
        if (m->n_gpus < PROBE_MAX_GPUS)
            m->gpus[m->n_gpus++] = g;
    }
    if (!rejects_verdict(&bad, "line", found, err, err_len))
        return false;
    snprintf(m->gpu_tool, sizeof m->gpu_tool, "nvidia-smi");
    return true;
}

static const char *map_text(const struct ynode *map, const char *const *keys)
{
    for (int i = 0; keys[i]; i++) {
        const struct ynode *v = ynode_get(map, keys[i]);
        if (v && v->kind == YNODE_SCALAR && v->value[0])
            return v->value;
    }
    return NULL;
}

bool probe_parse_rocm_smi(struct probe_machine *m, const char *json, char *err, size_t err_len)
{
    struct ydoc *doc = ydoc_load_string("rocm-smi output", json, strlen(json), err, err_len);
    if (!doc)
        return false;
    static const char *const name_keys[] = {"Card Series", "Card series", "Card SKU", "Card model",
                                            NULL};
    static const char *const mem_keys[] = {"VRAM Total Memory (B)", NULL};
    static const char *const power_keys[] = {"Max Graphics Package Power (W)",
                                             "Max Graphics Package Power (W) ", NULL};
    const struct ynode *root = doc->root;
    size_t found = 0;
    struct rejects bad = {0};
    for (size_t i = 0; root && root->kind == YNODE_MAP && i < root->count; i++) {
        const struct ynode *card = root->items[i];
        if (card->kind != YNODE_MAP || !probe_starts_with(root->keys[i]->value, "card"))
            continue;
        const char *name = map_text(card, name_keys), *mem = map_text(card, mem_keys),
                   *power = map_text(card, power_keys);
        double bytes = mem ? field_number(mem) : 0, watts = power ? field_number(power) : 0;
        if (!(bytes >= 1048576.0 && bytes <= PROBE_MAX_GPU_MIB * 1048576.0)) {
            reject(&bad, (int)i + 1,
                   mem ? "VRAM Total Memory is not a GPU's memory size" : "no VRAM Total Memory");
            continue;
        }
        if (power && !(watts >= 1 && watts <= PROBE_MAX_GPU_W)) {
            reject(&bad, (int)i + 1, "Max Graphics Package Power is not a GPU's power limit");
            continue;
        }
        found++;
        if (m->n_gpus >= PROBE_MAX_GPUS)
            continue;
        struct probe_gpu *g = &m->gpus[m->n_gpus++];
        memset(g, 0, sizeof *g);
        probe_copy_clean(g->name, sizeof g->name, name ? name : "AMD GPU",
                         strlen(name ? name : "AMD GPU"));
        g->mem_gb = bytes / 1e9;
        g->power_w = watts;
    }
    ydoc_free(doc);
    if (!rejects_verdict(&bad, "card", found, err, err_len))
        return false;
    snprintf(m->gpu_tool, sizeof m->gpu_tool, "rocm-smi");
    return true;
}

/* ---- the read test ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A scratch file in dir that has no name from the start (O_TMPFILE) or
 * loses it at once, so that no ending of mlviz, not even SIGKILL, leaves it
 * behind: the descriptor is all there is. -1 with errno set on failure. */
static int scratch_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
#endif
    char path[1200];
    snprintf(path, sizeof path, "%s/.mlviz-probe-XXXXXX", dir);
    int fd2 = mkstemp(path);
    if (fd2 >= 0)
        unlink(path);
    return fd2;
}

bool probe_measure_read(const char *dir, double *gbs, char *err, size_t err_len)
{
    enum { CHUNK = 1 << 20 };
    int fd = scratch_file(dir);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot create a scratch file: %s", dir, strerror(errno));
        return false;
    }
    char *buf = malloc(CHUNK);
    bool ok = buf != NULL;
    size_t written = 0;
    double start = now_s();
    /* Write the scratch file: incompressible-ish bytes, at most the cap and
     * at most half the time budget. */
    for (size_t i = 0; ok && i < CHUNK; i++)
        buf[i] = (char)(i * 2654435761u >> 13);
    while (ok && written < (size_t)PROBE_MEASURE_BYTES && now_s() - start < PROBE_MEASURE_S / 2.0) {
        ssize_t w = write(fd, buf, CHUNK);
        if (w <= 0) {
            snprintf(err, err_len, "%s: cannot write the scratch file: %s", dir,
                     w < 0 ? strerror(errno) : "disk full");
            ok = false;
        } else {
            written += (size_t)w;
        }
    }
    if (ok && fsync(fd) != 0) {
        snprintf(err, err_len, "%s: cannot flush the scratch file: %s", dir, strerror(errno));
        ok = false;
    }
#ifdef POSIX_FADV_DONTNEED
    /* Drop the file from the page cache so the read comes from the disk. */
    if (ok)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
#endif
    size_t read_bytes = 0;
    double t0 = now_s(), elapsed = 0;
    if (ok && lseek(fd, 0, SEEK_SET) == 0) {
        while (read_bytes < written && now_s() - t0 < PROBE_MEASURE_S / 2.0) {
            ssize_t r = read(fd, buf, CHUNK);
            if (r <= 0)
                break;
            read_bytes += (size_t)r;
        }
        elapsed = now_s() - t0;
    }
    close(fd);
    free(buf);
    if (!ok)
        return false;
    if (read_bytes == 0 || !(elapsed > 0)) {
        snprintf(err, err_len, "%s: the read test read nothing", dir);
        return false;
    }
    *gbs = (double)read_bytes / elapsed / 1e9;
    return isfinite(*gbs) && *gbs > 0;
}
