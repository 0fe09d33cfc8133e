/* probe: reading this machine's hardware and matching it to the catalog. */
#include "probe.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "infile.h"
#include "yamldoc.h"

const char *const probe_nvidia_smi_argv[] = {
    "nvidia-smi",
    "--query-gpu=name,memory.total,power.limit,pcie.link.gen.max,pcie.link.width.max",
    "--format=csv,noheader,nounits", NULL};
const char *const probe_rocm_smi_argv[] = {"rocm-smi",     "--showproductname", "--showmeminfo",
                                           "vram",         "--showmaxpower",    "--json",
                                           NULL};

/* ---- small text helpers ------------------------------------------------------ */

/* Copies text that came from the machine: printable ASCII only, trimmed. */
static void copy_clean(char *dst, size_t len, const char *src, size_t n)
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
    copy_clean(buf, len, text, line);
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

/* "key : value" lines of /proc/cpuinfo. Sockets are the distinct physical
 * ids, cores the distinct (physical id, core id) pairs. */
static void parse_cpuinfo(struct probe_machine *m, const char *text)
{
    enum { MAX_PAIRS = 4096 };
    static long pairs[MAX_PAIRS][2];
    size_t n_pairs = 0;
    long ids[256];
    size_t n_ids = 0;
    long phys = -1, core = -1;
    int processors = 0;
    const char *line = text;
    while (*line) {
        size_t n = strcspn(line, "\n");
        const char *colon = memchr(line, ':', n);
        if (colon) {
            char key[64], value[PROBE_TEXT];
            copy_clean(key, sizeof key, line, (size_t)(colon - line));
            copy_clean(value, sizeof value, colon + 1, n - (size_t)(colon - line) - 1);
            if (strcmp(key, "processor") == 0) {
                processors++;
                phys = core = -1;
            } else if ((strcmp(key, "model name") == 0 || strcmp(key, "Model") == 0 ||
                        strcmp(key, "cpu model") == 0) &&
                       !m->cpu_model[0]) {
                snprintf(m->cpu_model, sizeof m->cpu_model, "%s", value);
            } else if (strcmp(key, "physical id") == 0) {
                phys = strtol(value, NULL, 10);
                bool seen = false;
                for (size_t i = 0; i < n_ids; i++)
                    seen |= ids[i] == phys;
                if (!seen && n_ids < sizeof ids / sizeof ids[0])
                    ids[n_ids++] = phys;
            } else if (strcmp(key, "core id") == 0) {
                core = strtol(value, NULL, 10);
                bool seen = false;
                for (size_t i = 0; i < n_pairs && !seen; i++)
                    seen = pairs[i][0] == phys && pairs[i][1] == core;
                if (!seen && n_pairs < MAX_PAIRS) {
                    pairs[n_pairs][0] = phys;
                    pairs[n_pairs][1] = core;
                    n_pairs++;
                }
            }
        }
        line += n + (line[n] == '\n');
    }
    m->threads = processors > 0 ? processors : 1;
    m->sockets = n_ids > 0 ? (int)n_ids : 1;
    int cores = n_pairs > 0 ? (int)n_pairs : m->threads;
    m->cores_per_socket = cores / m->sockets > 0 ? cores / m->sockets : 1;
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

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
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
        if (starts_with(name, "loop") || starts_with(name, "ram") || starts_with(name, "dm-") ||
            starts_with(name, "sr") || starts_with(name, "zram") || starts_with(name, "md") ||
            starts_with(name, "fd"))
            continue;
        double sectors = 0, rotational = 0, removable = 0;
        snprintf(path, sizeof path, "%s/block/%s/size", sys, name);
        if (!read_number(path, &sectors) || sectors <= 0)
            continue;
        snprintf(path, sizeof path, "%s/block/%s/removable", sys, name);
        if (read_number(path, &removable) && removable != 0)
            continue;
        snprintf(path, sizeof path, "%s/block/%s/queue/rotational", sys, name);
        read_number(path, &rotational);
        struct probe_disk *d = &m->disks[m->n_disks++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s", name);
        d->size_gb = sectors * 512.0 / 1e9;
        d->kind = starts_with(name, "nvme") ? PROBE_DISK_NVME
                  : rotational != 0         ? PROBE_DISK_HDD
                                            : PROBE_DISK_SSD;
        if (d->kind == PROBE_DISK_NVME) {
            /* "16.0 GT/s PCIe": 8 GT/s is gen 3, 16 gen 4, 32 gen 5. */
            char speed[64];
            snprintf(path, sizeof path, "%s/block/%s/device/device/current_link_speed", sys,
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
        if (starts_with(names[i], "dimm") || starts_with(names[i], "rank"))
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

bool probe_parse_nvidia_smi(struct probe_machine *m, const char *csv, char *err, size_t err_len)
{
    int line_no = 0;
    const char *line = csv;
    while (*line) {
        size_t n = strcspn(line, "\n");
        line_no++;
        char buf[512];
        copy_clean(buf, sizeof buf, line, n < sizeof buf ? n : sizeof buf - 1);
        line += n + (line[n] == '\n');
        if (!buf[0])
            continue;
        char *cols[5];
        int k = 0;
        char *save, *tok = strtok_r(buf, ",", &save);
        for (; tok && k < 5; tok = strtok_r(NULL, ",", &save))
            cols[k++] = tok;
        if (k < 2) {
            snprintf(err, err_len, "nvidia-smi output line %d: expected name, memory.total, ...",
                     line_no);
            return false;
        }
        if (m->n_gpus >= PROBE_MAX_GPUS)
            break;
        struct probe_gpu *g = &m->gpus[m->n_gpus++];
        memset(g, 0, sizeof *g);
        copy_clean(g->name, sizeof g->name, cols[0], strlen(cols[0]));
        double mib = field_number(cols[1] + strspn(cols[1], " "));
        g->mem_gb = mib * 1048576.0 / 1e9;
        g->power_w = k > 2 ? field_number(cols[2] + strspn(cols[2], " ")) : 0;
        g->pcie_gen = k > 3 ? (int)field_number(cols[3] + strspn(cols[3], " ")) : 0;
        g->pcie_width = k > 4 ? (int)field_number(cols[4] + strspn(cols[4], " ")) : 0;
        if (g->pcie_gen > 8)
            g->pcie_gen = 0;
    }
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
    static const char *const name_keys[] = {"Card Series", "Card series", "Card SKU",
                                            "Card model", NULL};
    static const char *const mem_keys[] = {"VRAM Total Memory (B)", NULL};
    static const char *const power_keys[] = {"Max Graphics Package Power (W)",
                                             "Max Graphics Package Power (W) ", NULL};
    const struct ynode *root = doc->root;
    for (size_t i = 0; root && root->kind == YNODE_MAP && i < root->count; i++) {
        const struct ynode *card = root->items[i];
        if (card->kind != YNODE_MAP || !starts_with(root->keys[i]->value, "card"))
            continue;
        if (m->n_gpus >= PROBE_MAX_GPUS)
            break;
        struct probe_gpu *g = &m->gpus[m->n_gpus++];
        memset(g, 0, sizeof *g);
        const char *name = map_text(card, name_keys), *mem = map_text(card, mem_keys),
                   *power = map_text(card, power_keys);
        copy_clean(g->name, sizeof g->name, name ? name : "AMD GPU", strlen(name ? name : "AMD GPU"));
        g->mem_gb = mem ? field_number(mem) / 1e9 : 0;
        g->power_w = power ? field_number(power) : 0;
    }
    ydoc_free(doc);
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

bool probe_measure_read(const char *dir, double *gbs, char *err, size_t err_len)
{
    enum { CHUNK = 1 << 20 };
    char path[1200];
    snprintf(path, sizeof path, "%s/.mlviz-probe-XXXXXX", dir);
    int fd = mkstemp(path);
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
        while (read_bytes < written && (elapsed = now_s() - t0) < PROBE_MEASURE_S / 2.0) {
            ssize_t r = read(fd, buf, CHUNK);
            if (r <= 0)
                break;
            read_bytes += (size_t)r;
        }
        elapsed = now_s() - t0;
    }
    close(fd);
    unlink(path);
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

/* ---- matching ------------------------------------------------------------------------ */

enum { MAX_TOKENS = 24 };

/* Lower-case alphanumeric words of a name, without the vendor's marks. */
static size_t tokens(const char *text, char out[][32])
{
    static const char *const noise[] = {"r", "tm", "cpu", "processor", "with", "nvidia",
                                        "amd", "intel", "gen", NULL};
    size_t n = 0;
    const char *p = text;
    while (*p && n < MAX_TOKENS) {
        while (*p && *p != '@' && !isalnum((unsigned char)*p))
            p++;
        if (*p == '@')
            break; /* "@ 2.40GHz": the clock, not the model */
        size_t k = 0;
        char word[32];
        while (isalnum((unsigned char)*p)) {
            if (k + 1 < sizeof word)
                word[k++] = (char)tolower((unsigned char)*p);
            p++;
        }
        word[k] = '\0';
        bool skip = k == 0;
        for (int i = 0; noise[i] && !skip; i++)
            skip = strcmp(word, noise[i]) == 0;
        if (!skip)
            snprintf(out[n++], 32, "%s", word);
        if (*p == '@')
            break;
    }
    return n;
}

/* Words of an id that name a form factor or a memory size ("sxm",
 * "pcie", "80gb"): the PCIe flag and the memory size decide those. */
static bool form_word(const char *w)
{
    size_t n = strlen(w);
    return starts_with(w, "sxm") || strcmp(w, "pcie") == 0 ||
           (n > 2 && strcmp(w + n - 2, "gb") == 0 && isdigit((unsigned char)w[0]));
}

/* How many of the id's model words the name holds; a word of the id
 * matches a name word that starts with it. */
static size_t id_words_in(const char *id, char name_words[][32], size_t n_name, size_t *id_words)
{
    char words[MAX_TOKENS][32];
    size_t n = tokens(id, words), hits = 0, counted = 0;
    for (size_t i = 0; i < n; i++) {
        if (form_word(words[i]))
            continue;
        counted++;
        for (size_t j = 0; j < n_name; j++)
            if (starts_with(name_words[j], words[i])) {
                hits++;
                break;
            }
    }
    *id_words = counted;
    return hits;
}

static bool has_word(char words[][32], size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (starts_with(words[i], w))
            return true;
    return false;
}

static double log_ratio(double a, double b)
{
    return a > 0 && b > 0 ? fabs(log(a / b)) : 1.0;
}

/* The training formats, narrowest first: a probed setup uses the first
 * the device has a path for. */
static const int train_formats[] = {PREC_BF16, PREC_FP16, PREC_TF32, PREC_FP32};

/* Can the device train at all (an inference-only chip has only int8)? */
static bool trains(const struct accelerator *a)
{
    for (size_t i = 0; i < sizeof train_formats / sizeof train_formats[0]; i++)
        if (a->peak_tflops[train_formats[i]] > 0)
            return true;
    return false;
}

/* The exact id when there is one, else the closest (which becomes the id). */
static void set_match(struct probe_match *out, const char *exact, const char *closest)
{
    memset(out, 0, sizeof *out);
    if (exact) {
        snprintf(out->id, sizeof out->id, "%s", exact);
        out->exact = true;
    } else if (closest) {
        snprintf(out->id, sizeof out->id, "%s", closest);
        snprintf(out->closest, sizeof out->closest, "%s", closest);
    }
}

/* The accelerator for a detected GPU: exact when every word of an id is in
 * the name, the memory is within 10% and PCIe cards match PCIe ids;
 * otherwise the nearest in memory and power among non-CPU devices. */
static void match_gpu(const struct catalog *cat, const struct probe_gpu *g,
                      struct probe_match *out)
{
    char words[MAX_TOKENS][32];
    size_t n = tokens(g->name, words);
    bool pcie = has_word(words, n, "pcie");
    const struct accelerator *best = NULL, *near = NULL;
    double best_score = 0, near_score = INFINITY;
    for (size_t i = 0; i < catalog_count(cat, CATALOG_ACCELERATOR); i++) {
        const struct accelerator *a = catalog_entry(cat, CATALOG_ACCELERATOR, i);
        if (a->kind == ACCEL_CPU || !trains(a))
            continue;
        size_t id_words, hits = id_words_in(a->head.id, words, n, &id_words);
        bool id_pcie = strstr(a->head.id, "pcie") != NULL;
        bool mem_ok = g->mem_gb <= 0 || fabs(a->mem_gb - g->mem_gb) <= 0.1 * a->mem_gb;
        if (hits == id_words && id_words > 0 && mem_ok && pcie == id_pcie &&
            (double)hits > best_score) {
            best = a;
            best_score = (double)hits;
        }
        double d = log_ratio(a->mem_gb, g->mem_gb) + log_ratio(a->tdp_w, g->power_w) +
                   (hits > 0 ? 0 : 1);
        if (d < near_score) {
            near = a;
            near_score = d;
        }
    }
    set_match(out, best ? best->head.id : NULL, near ? near->head.id : NULL);
}

/* The host CPU: exact when every word of a CPU id is in the model name;
 * otherwise the nearest in cores per socket. */
static void match_cpu(const struct catalog *cat, const struct probe_machine *m,
                      struct probe_match *out)
{
    char words[MAX_TOKENS][32];
    size_t n = tokens(m->cpu_model, words);
    const struct cpu *best = NULL, *near = NULL;
    double near_score = INFINITY;
    for (size_t i = 0; i < catalog_count(cat, CATALOG_CPU); i++) {
        const struct cpu *c = catalog_entry(cat, CATALOG_CPU, i);
        size_t id_words, hits = id_words_in(c->head.id, words, n, &id_words);
        if (hits == id_words && id_words > 0 && !best)
            best = c;
        double d = log_ratio(c->cores, m->cores_per_socket);
        if (d < near_score) {
            near = c;
            near_score = d;
        }
    }
    set_match(out, best ? best->head.id : NULL, near ? near->head.id : NULL);
}

/* The nearest entry of a kind by one number (a link's or storage's
 * bandwidth), among ids starting with `prefix`; exact when within 1%. */
static void match_by_number(const struct catalog *cat, enum catalog_kind kind,
                            const char *prefix, const char *member, double want,
                            struct probe_match *out)
{
    const struct field *f = fields_find(catalog_fields(kind), member);
    double near_score = INFINITY;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; f && i < catalog_count(cat, kind); i++) {
        const struct catalog_head *h = catalog_entry(cat, kind, i);
        if (!starts_with(h->id, prefix))
            continue;
        double v = fields_get_number(f, h);
        double d = log_ratio(v, want);
        if (d < near_score) {
            near_score = d;
            snprintf(out->id, sizeof out->id, "%s", h->id);
            out->exact = d < 0.01;
        }
    }
    if (!out->exact)
        snprintf(out->closest, sizeof out->closest, "%s", out->id);
}

/* ---- output -------------------------------------------------------------------------- */

static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* "probe-" + the name's words, at most FIELD_STR_LEN - 1 characters. */
static void slug_id(const char *name, char *id, size_t len)
{
    char words[MAX_TOKENS][32];
    size_t n = tokens(name, words);
    snprintf(id, len, "probe");
    for (size_t i = 0; i < n && strlen(id) + strlen(words[i]) + 2 < len && strlen(id) < 40; i++)
        append(id, len, "-%s", words[i]);
}

/* One catalog entry as YAML, every field of the kind's table. */
static void write_entry(char *buf, size_t len, enum catalog_kind kind, const void *entry)
{
    const struct field_table *t = catalog_fields(kind);
    char value[512];
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        /* A number below its floor is unset: the loader fills it. */
        if ((f->type == FIELD_NUM || f->type == FIELD_INT) && fields_get_number(f, entry) == 0 &&
            f->min > 0)
            continue;
        append(buf, len, "%s%s: ", i == 0 ? "  - " : "    ", f->path);
        if (f->type == FIELD_STR || f->type == FIELD_REF) {
            const char *s = fields_get_string(f, entry);
            append(buf, len, "\"");
            for (; *s; s++)
                if (*s == '"' || *s == '\\')
                    append(buf, len, "\\%c", *s);
                else if ((unsigned char)*s >= 0x20)
                    append(buf, len, "%c", *s);
            append(buf, len, "\"\n");
            continue;
        }
        fields_format(f, entry, value, sizeof value);
        if ((f->flags & FIELD_NULLABLE) && fields_get_number(f, entry) == FIELD_ABSENT)
            snprintf(value, sizeof value, "null");
        append(buf, len, "%s\n", value);
    }
}

static void set_field(void *entry, enum catalog_kind kind, const char *path, double v)
{
    char err[256];
    const struct field *f = fields_find(catalog_fields(kind), path);
    if (f && v > 0)
        fields_set_number(f, entry, v, err, sizeof err);
}

/* Leaves a number field unset (0), for the loader to derive: a catalog
 * that states device memory as mem_gb or mem_gib, exactly one, gets the
 * mem_gb the probe read. */
static void unset_field(void *entry, enum catalog_kind kind, const char *path)
{
    const struct field *f = fields_find(catalog_fields(kind), path);
    if (f && f->type == FIELD_NUM)
        *(double *)((char *)entry + f->offset) = 0.0;
}

static void set_text(void *entry, enum catalog_kind kind, const char *path, const char *text)
{
    char err[256], clean[FIELD_STR_LEN * 4];
    const struct field *f = fields_find(catalog_fields(kind), path);
    copy_clean(clean, sizeof clean, text, strlen(text));
    if (f)
        fields_set_text(f, entry, clean, err, sizeof err);
}

/* A new entry copied from the closest one: id and name from this machine,
 * a source and notes that say what was read and what was copied. */
static void derive_entry(void *entry, enum catalog_kind kind, const char *name,
                         const char *source, const char *notes)
{
    struct catalog_head *h = entry;
    if (kind == CATALOG_ACCELERATOR)
        unset_field(entry, kind, "mem_gib");
    slug_id(name, h->id, sizeof h->id);
    set_text(entry, kind, "name", name);
    set_text(entry, kind, "source", source);
    set_text(entry, kind, "notes", notes);
}

static void set(struct setup *s, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set(struct setup *s, const char *path, const char *fmt, ...)
{
    char text[256], err[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    setup_set(s, path, text, err, sizeof err);
}

static void note_match(struct probe_result *out, const char *what, const char *found,
                       const struct probe_match *mt)
{
    if (mt->exact)
        append(out->comments, sizeof out->comments, "#   %-12s %s -> %s\n", what, found, mt->id);
    else if (mt->new_entry)
        append(out->comments, sizeof out->comments,
               "#   %-12s %s -> %s (not in the catalog: a new entry, figures the probe cannot "
               "read copied from the closest entry, %s)\n",
               what, found, mt->id, mt->closest);
    else
        append(out->comments, sizeof out->comments,
               "#   %-12s %s -> %s (not in the catalog: closest entry; --write adds an entry)\n",
               what, found, mt->id);
}

bool probe_build(const struct probe_machine *raw, const struct catalog *cat, bool new_entries,
                 struct probe_result *out, char *err, size_t err_len)
{
    /* Names may come from anywhere (a caller, a hostile tool): printable
     * ASCII only from here on, as the parsers already ensure. */
    static struct probe_machine clean;
    clean = *raw;
    copy_clean(clean.cpu_model, sizeof clean.cpu_model, raw->cpu_model,
               strnlen(raw->cpu_model, sizeof raw->cpu_model));
    if (clean.n_gpus > PROBE_MAX_GPUS)
        clean.n_gpus = PROBE_MAX_GPUS;
    for (size_t i = 0; i < clean.n_gpus; i++)
        copy_clean(clean.gpus[i].name, sizeof clean.gpus[i].name, raw->gpus[i].name,
                   strnlen(raw->gpus[i].name, sizeof raw->gpus[i].name));
    const struct probe_machine *m = &clean;
    memset(out, 0, sizeof *out);
    if (catalog_count(cat, CATALOG_ACCELERATOR) == 0 || catalog_count(cat, CATALOG_CPU) == 0) {
        snprintf(err, err_len, "the catalog has no accelerators or CPUs to match against");
        return false;
    }
    struct setup *s = &out->setup;
    setup_defaults(s);
    char accel_entries[PROBE_YAML_LEN / 2] = "", cpu_entries[PROBE_YAML_LEN / 2] = "";
    char found[256];
    append(out->comments, sizeof out->comments, "# Written by mlviz probe: this machine as a setup.\n");
    if (m->gpu_tool[0])
        append(out->comments, sizeof out->comments, "# GPUs from %s; ", m->gpu_tool);
    else
        append(out->comments, sizeof out->comments, "# No GPU tool found (nvidia-smi, rocm-smi); ");
    append(out->comments, sizeof out->comments, "CPU and memory from /proc, disks from /sys.\n");
    append(out->comments, sizeof out->comments, "# Found and matched to the catalog:\n");

    /* CPU */
    match_cpu(cat, m, &out->cpu);
    const struct cpu *cpu_near = catalog_cpu(cat, out->cpu.id);
    if (!out->cpu.exact && new_entries && cpu_near) {
        struct cpu c = *cpu_near;
        char notes[256];
        snprintf(notes, sizeof notes,
                 "cores%s read from this machine; every other figure copied from %s",
                 m->mem_channels > 0 ? " and memory channels" : "", cpu_near->head.id);
        derive_entry(&c, CATALOG_CPU, m->cpu_model, "mlviz probe: /proc/cpuinfo, /sys", notes);
        set_text(&c, CATALOG_CPU, "vendor", "");
        set_field(&c, CATALOG_CPU, "cores", m->cores_per_socket);
        set_field(&c, CATALOG_CPU, "mem_channels", m->mem_channels);
        snprintf(out->cpu.id, sizeof out->cpu.id, "%s", c.head.id);
        out->cpu.new_entry = true;
        write_entry(cpu_entries, sizeof cpu_entries, CATALOG_CPU, &c);
    }
    snprintf(found, sizeof found, "%.100s, %d socket%s x %d cores, %.0f GB RAM", m->cpu_model,
             m->sockets, m->sockets == 1 ? "" : "s", m->cores_per_socket, m->ram_gb);
    note_match(out, "cpu", found, &out->cpu);
    set(s, "cluster.node.cpu", "%s", out->cpu.id);
    set(s, "cluster.node.cpu_sockets", "%d", m->sockets > 16 ? 16 : m->sockets);
    set(s, "cluster.node.host_ram_gb", "%.6g", m->ram_gb);

    /* Accelerators: the GPUs of the first model found, or the CPU itself. */
    int devices = 0, pcie_gen = 0;
    struct accelerator chosen; /* the device the setup names, for its precisions */
    if (m->n_gpus > 0) {
        const struct probe_gpu *g = &m->gpus[0];
        for (size_t i = 0; i < m->n_gpus; i++)
            devices += strcmp(m->gpus[i].name, g->name) == 0;
        if ((size_t)devices < m->n_gpus)
            append(out->comments, sizeof out->comments,
                   "#   (%zu GPUs of other models left out: a setup has one accelerator model)\n",
                   m->n_gpus - (size_t)devices);
        pcie_gen = g->pcie_gen;
        match_gpu(cat, g, &out->accel);
        const struct accelerator *near = catalog_accelerator(cat, out->accel.id);
        if (!near) {
            snprintf(err, err_len, "the catalog has no GPU-class accelerator to match %s against",
                     g->name);
            return false;
        }
        if (!out->accel.exact && new_entries) {
            struct accelerator a = *near;
            char notes[256];
            snprintf(notes, sizeof notes,
                     "memory and power limit read from this machine; compute, bandwidth and "
                     "efficiencies copied from %s",
                     near->head.id);
            derive_entry(&a, CATALOG_ACCELERATOR, g->name, "mlviz probe: nvidia-smi/rocm-smi",
                         notes);
            set_field(&a, CATALOG_ACCELERATOR, "mem_gb", g->mem_gb);
            /* Idle power keeps its share of the board power. */
            if (g->power_w > 0 && near->tdp_w > 0)
                set_field(&a, CATALOG_ACCELERATOR, "idle_w", near->idle_w * g->power_w / near->tdp_w);
            set_field(&a, CATALOG_ACCELERATOR, "tdp_w", g->power_w);
            snprintf(out->accel.id, sizeof out->accel.id, "%s", a.head.id);
            out->accel.new_entry = true;
            write_entry(accel_entries, sizeof accel_entries, CATALOG_ACCELERATOR, &a);
            chosen = a;
        } else {
            chosen = *near;
        }
        snprintf(found, sizeof found, "%d x %.100s, %.0f GB, %.0f W", devices, g->name, g->mem_gb,
                 g->power_w);
        note_match(out, "accelerator", found, &out->accel);
    } else {
        /* CPU-only: the sockets are the devices. */
        devices = m->sockets;
        const struct accelerator *near = NULL;
        double near_score = INFINITY;
        for (size_t i = 0; i < catalog_count(cat, CATALOG_ACCELERATOR); i++) {
            const struct accelerator *a = catalog_entry(cat, CATALOG_ACCELERATOR, i);
            double d = log_ratio(a->compute_units, m->cores_per_socket);
            if (a->kind == ACCEL_CPU && trains(a) && d < near_score) {
                near = a;
                near_score = d;
            }
        }
        if (!near) {
            snprintf(err, err_len, "the catalog has no CPU accelerator (kind: cpu) for a "
                                   "machine without GPUs");
            return false;
        }
        memset(&out->accel, 0, sizeof out->accel);
        snprintf(out->accel.id, sizeof out->accel.id, "%s", near->head.id);
        chosen = *near;
        out->accel.exact = out->cpu.exact && strcmp(near->head.id, out->cpu.id) == 0;
        if (!out->accel.exact) {
            snprintf(out->accel.closest, sizeof out->accel.closest, "%s", near->head.id);
            if (new_entries) {
                /* Peaks scale with cores (same vector units per core). */
                struct accelerator a = *near;
                double scale = (double)m->cores_per_socket / near->compute_units;
                char notes[256];
                snprintf(notes, sizeof notes,
                         "the CPU as the training device: cores and memory read from this "
                         "machine; peaks scaled by core count from %s, the rest copied",
                         near->head.id);
                derive_entry(&a, CATALOG_ACCELERATOR, m->cpu_model,
                             "mlviz probe: /proc/cpuinfo, /proc/meminfo", notes);
                set_field(&a, CATALOG_ACCELERATOR, "compute_units", m->cores_per_socket);
                set_field(&a, CATALOG_ACCELERATOR, "mem_gb", m->ram_gb / devices);
                for (int p = 0; p < PREC_COUNT; p++)
                    if (a.peak_tflops[p] > 0)
                        a.peak_tflops[p] *= scale;
                snprintf(out->accel.id, sizeof out->accel.id, "%s", a.head.id);
                out->accel.new_entry = true;
                write_entry(accel_entries, sizeof accel_entries, CATALOG_ACCELERATOR, &a);
                chosen = a;
            }
        }
        snprintf(found, sizeof found, "no GPU: %d CPU socket%s as the device%s", devices,
                 devices == 1 ? "" : "s", devices == 1 ? "" : "s");
        note_match(out, "accelerator", found, &out->accel);
    }
    set(s, "cluster.node.accelerator", "%s", out->accel.id);
    set(s, "cluster.node.accelerators_per_node", "%d", devices > 1024 ? 1024 : devices);
    set(s, "cluster.nodes", "1");

    /* Host link: the GPUs' PCIe generation (else the CPU's). */
    const struct cpu *cpu = catalog_cpu(cat, cpu_near ? cpu_near->head.id : out->cpu.id);
    int gen = pcie_gen > 0 ? pcie_gen : cpu ? cpu->pcie_gen : 4;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "pcie%d-x16", gen);
    match_by_number(cat, CATALOG_LINK, "pcie", "bw_gbs",
                    catalog_link(cat, prefix) ? catalog_link(cat, prefix)->bw_gbs : 32.0 * gen / 4,
                    &out->host_link);
    snprintf(found, sizeof found, "PCIe gen %d", gen);
    note_match(out, "host link", found, &out->host_link);
    set(s, "cluster.node.host_link", "%s", out->host_link.id);
    set(s, "cluster.node.intra_link", "%s", "");
    if (m->n_gpus == 0 || devices == 1)
        set(s, "cluster.node.intra_link", "%s", out->host_link.id);

    /* Network: the fastest physical port, as Ethernet. */
    match_by_number(cat, CATALOG_LINK, "eth", "bw_gbs", m->nic_gbps > 0 ? m->nic_gbps / 8 : 0.125,
                    &out->nic);
    snprintf(found, sizeof found, m->nic_gbps > 0 ? "%.0f Gbit/s port" : "no link speed found",
             m->nic_gbps);
    note_match(out, "network", found, &out->nic);
    set(s, "cluster.node.nic", "%s", out->nic.id);
    set(s, "cluster.node.nics_per_node", "1");

    /* Local disk: the first NVMe drive, else SSD, else disk. */
    const struct probe_disk *disk = NULL;
    for (int kind = PROBE_DISK_NVME; kind <= PROBE_DISK_HDD && !disk; kind++)
        for (size_t i = 0; i < m->n_disks && !disk; i++)
            if (m->disks[i].kind == kind)
                disk = &m->disks[i];
    if (disk) {
        char want[32];
        if (disk->kind == PROBE_DISK_HDD)
            snprintf(want, sizeof want, "hdd");
        else
            snprintf(want, sizeof want, "nvme-gen%d", disk->pcie_gen > 0 ? disk->pcie_gen : 4);
        memset(&out->storage, 0, sizeof out->storage);
        if (catalog_storage(cat, want)) {
            snprintf(out->storage.id, sizeof out->storage.id, "%s", want);
            out->storage.exact = disk->kind != PROBE_DISK_SSD &&
                                 (disk->kind == PROBE_DISK_HDD || disk->pcie_gen > 0);
        } else {
            match_by_number(cat, CATALOG_STORAGE, "nvme", "read_gbs", 3.5, &out->storage);
        }
        if (!out->storage.exact)
            snprintf(out->storage.closest, sizeof out->storage.closest, "%s", out->storage.id);
        snprintf(found, sizeof found, "%s, %s, %.0f GB", disk->name,
                 disk->kind == PROBE_DISK_NVME ? "NVMe" : disk->kind == PROBE_DISK_SSD ? "SSD"
                                                                                      : "HDD",
                 disk->size_gb);
        note_match(out, "disk", found, &out->storage);
        set(s, "cluster.node.local_storage", "%s", out->storage.id);
        set(s, "cluster.storage", "%s", out->storage.id);
        set(s, "data.source", "local");
    } else {
        append(out->comments, sizeof out->comments, "#   %-12s none found (the default tier)\n",
               "disk");
    }
    if (m->read_gbs > 0) {
        set(s, "cluster.storage_bw_gbs", "%.4g", m->read_gbs);
        append(out->comments, sizeof out->comments,
               "#   %-12s sequential read measured at %.2f GB/s\n", "read test", m->read_gbs);
    }

    /* One machine under a desk: no rack, no facility overhead. A small
     * GPT-2-class model (Radford et al. 2019: 12 layers, 768 wide) so the
     * setup runs on most machines; change it with model: {name: ...}. */
    set(s, "name", "this machine (%.50s)", m->n_gpus > 0 ? m->gpus[0].name : m->cpu_model);
    set(s, "facility.nodes_per_rack", "1");
    set(s, "facility.pue", "1");
    set(s, "facility.device_usd_per_hour", "0");
    set(s, "cluster.node.other_w", "%d", m->n_gpus > 0 ? 150 : 20);
    set(s, "model.kind", "transformer");
    set(s, "model.layers", "12");
    set(s, "model.hidden", "768");
    set(s, "model.heads", "12");
    set(s, "model.seq_len", "1024");
    set(s, "model.vocab", "50257");
    set(s, "model.mlp", "gelu");
    set(s, "training.global_batch", "%d", 8 * devices);
    set(s, "training.micro_batch", "1");
    set(s, "training.zero_stage", "0");
    set(s, "training.tensor_parallel", "1");
    set(s, "training.pipeline_parallel", "1");
    set(s, "training.tokens", "1e9");
    if (m->n_gpus == 0)
        set(s, "training.flash_attention", "false");
    for (size_t i = 0; i < sizeof train_formats / sizeof train_formats[0]; i++)
        if (chosen.peak_tflops[train_formats[i]] > 0) {
            set(s, "training.precision", "%s", precision_names[train_formats[i]]);
            break;
        }
    if (accel_entries[0])
        append(out->catalog_yaml, sizeof out->catalog_yaml, "accelerators:\n%s", accel_entries);
    if (cpu_entries[0])
        append(out->catalog_yaml, sizeof out->catalog_yaml, "cpus:\n%s", cpu_entries);
    return true;
}
