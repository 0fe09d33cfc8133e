/* probe_build: the probed machine as a setup, matched to the catalog, with
 * catalog entries for the devices the catalog lacks. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"
#include "probe_internal.h"

/* ---- matching ------------------------------------------------------------------------ */

enum { MAX_TOKENS = 24 };

/* Lower-case alphanumeric words of a name, without the vendor's marks. */
static size_t tokens(const char *text, char out[][32])
{
    static const char *const noise[] = {"r",      "tm",  "cpu",   "processor", "with",
                                        "nvidia", "amd", "intel", "gen",       NULL};
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
    return probe_starts_with(w, "sxm") || strcmp(w, "pcie") == 0 ||
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
            if (probe_starts_with(name_words[j], words[i])) {
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
        if (probe_starts_with(words[i], w))
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
static void match_gpu(const struct catalog *cat, const struct probe_gpu *g, struct probe_match *out)
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
        double d =
            log_ratio(a->mem_gb, g->mem_gb) + log_ratio(a->tdp_w, g->power_w) + (hits > 0 ? 0 : 1);
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
static void match_by_number(const struct catalog *cat, enum catalog_kind kind, const char *prefix,
                            const char *member, double want, struct probe_match *out)
{
    const struct field *f = fields_find(catalog_fields(kind), member);
    double near_score = INFINITY;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; f && i < catalog_count(cat, kind); i++) {
        const struct catalog_head *h = catalog_entry(cat, kind, i);
        if (!probe_starts_with(h->id, prefix))
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
    probe_copy_clean(clean, sizeof clean, text, strlen(text));
    if (f)
        fields_set_text(f, entry, clean, err, sizeof err);
}

/* A new entry copied from the closest one: id and name from this machine,
 * a source and notes that say what was read and what was copied. */
static void derive_entry(void *entry, enum catalog_kind kind, const char *name, const char *source,
                         const char *notes)
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

/* What the steps of probe_build share. */
struct builder {
    const struct probe_machine *m;
    const struct catalog *cat;
    bool new_entries;
    struct probe_result *out;
    struct setup *s;
    char accel_entries[PROBE_YAML_LEN / 2], cpu_entries[PROBE_YAML_LEN / 2];
    char found[256];
    const struct cpu *cpu_near;
    struct accelerator chosen; /* the device the setup names, for its precisions */
    int devices, pcie_gen;
};

/* The CPU, a new entry for it when asked, and the host's RAM. */
static void build_cpu(struct builder *b)
{
    const struct probe_machine *m = b->m;
    const struct catalog *cat = b->cat;
    struct probe_result *out = b->out;
    struct setup *s = b->s;
    bool new_entries = b->new_entries;
    match_cpu(cat, m, &out->cpu);
    const struct cpu *cpu_near = b->cpu_near = catalog_cpu(cat, out->cpu.id);
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
        write_entry(b->cpu_entries, sizeof b->cpu_entries, CATALOG_CPU, &c);
    }
    snprintf(b->found, sizeof b->found, "%.100s, %d socket%s x %d cores, %.0f GB RAM", m->cpu_model,
             m->sockets, m->sockets == 1 ? "" : "s", m->cores_per_socket, m->ram_gb);
    note_match(out, "cpu", b->found, &out->cpu);
    set(s, "cluster.node.cpu", "%s", out->cpu.id);
    set(s, "cluster.node.cpu_sockets", "%d", m->sockets > 16 ? 16 : m->sockets);
    set(s, "cluster.node.host_ram_gb", "%.6g", m->ram_gb);
}

/* The GPUs of the first model found; false when nothing can match them. */
static bool build_gpus(struct builder *b, char *err, size_t err_len)
{
    const struct probe_machine *m = b->m;
    const struct catalog *cat = b->cat;
    struct probe_result *out = b->out;
    bool new_entries = b->new_entries;
    const struct probe_gpu *g = &m->gpus[0];
    for (size_t i = 0; i < m->n_gpus; i++)
        b->devices += strcmp(m->gpus[i].name, g->name) == 0;
    if ((size_t)b->devices < m->n_gpus)
        append(out->comments, sizeof out->comments,
               "#   (%zu GPUs of other models left out: a setup has one accelerator model)\n",
               m->n_gpus - (size_t)b->devices);
    b->pcie_gen = g->pcie_gen;
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
        derive_entry(&a, CATALOG_ACCELERATOR, g->name, "mlviz probe: nvidia-smi/rocm-smi", notes);
        set_field(&a, CATALOG_ACCELERATOR, "mem_gb", g->mem_gb);
        /* Idle power keeps its share of the board power. */
        if (g->power_w > 0 && near->tdp_w > 0)
            set_field(&a, CATALOG_ACCELERATOR, "idle_w", near->idle_w * g->power_w / near->tdp_w);
        set_field(&a, CATALOG_ACCELERATOR, "tdp_w", g->power_w);
        snprintf(out->accel.id, sizeof out->accel.id, "%s", a.head.id);
        out->accel.new_entry = true;
        write_entry(b->accel_entries, sizeof b->accel_entries, CATALOG_ACCELERATOR, &a);
        b->chosen = a;
    } else {
        b->chosen = *near;
    }
    char power[32] = "power limit unknown";
    if (g->power_w > 0)
        snprintf(power, sizeof power, "%.0f W", g->power_w);
    snprintf(b->found, sizeof b->found, "%d x %.100s, %.0f GB, %s", b->devices, g->name, g->mem_gb,
             power);
    note_match(out, "accelerator", b->found, &out->accel);
    return true;
}

/* No GPU: the CPU sockets are the devices; false without a CPU accelerator. */
static bool build_cpu_devices(struct builder *b, char *err, size_t err_len)
{
    const struct probe_machine *m = b->m;
    const struct catalog *cat = b->cat;
    struct probe_result *out = b->out;
    bool new_entries = b->new_entries;
    b->devices = m->sockets;
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
        snprintf(err, err_len,
                 "the catalog has no CPU accelerator (kind: cpu) for a "
                 "machine without GPUs");
        return false;
    }
    memset(&out->accel, 0, sizeof out->accel);
    snprintf(out->accel.id, sizeof out->accel.id, "%s", near->head.id);
    b->chosen = *near;
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
            set_field(&a, CATALOG_ACCELERATOR, "mem_gb", m->ram_gb / b->devices);
            for (int p = 0; p < PREC_COUNT; p++)
                if (a.peak_tflops[p] > 0)
                    a.peak_tflops[p] *= scale;
            snprintf(out->accel.id, sizeof out->accel.id, "%s", a.head.id);
            out->accel.new_entry = true;
            write_entry(b->accel_entries, sizeof b->accel_entries, CATALOG_ACCELERATOR, &a);
            b->chosen = a;
        }
    }
    snprintf(b->found, sizeof b->found, "no GPU: %d CPU socket%s as the device%s", b->devices,
             b->devices == 1 ? "" : "s", b->devices == 1 ? "" : "s");
    note_match(out, "accelerator", b->found, &out->accel);
    return true;
}

/* The host link (PCIe) and the network port. */
static void build_links(struct builder *b)
{
    const struct probe_machine *m = b->m;
    const struct catalog *cat = b->cat;
    struct probe_result *out = b->out;
    struct setup *s = b->s;
    const struct cpu *cpu_near = b->cpu_near;
    int pcie_gen = b->pcie_gen;
    /* Host link: the GPUs' PCIe generation (else the CPU's). */
    const struct cpu *cpu = catalog_cpu(cat, cpu_near ? cpu_near->head.id : out->cpu.id);
    int gen = pcie_gen > 0 ? pcie_gen : cpu ? cpu->pcie_gen : 4;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "pcie%d-x16", gen);
    match_by_number(cat, CATALOG_LINK, "pcie", "bw_gbs",
                    catalog_link(cat, prefix) ? catalog_link(cat, prefix)->bw_gbs : 32.0 * gen / 4,
                    &out->host_link);
    snprintf(b->found, sizeof b->found, "PCIe gen %d", gen);
    note_match(out, "host link", b->found, &out->host_link);
    set(s, "cluster.node.host_link", "%s", out->host_link.id);
    set(s, "cluster.node.intra_link", "%s", "");
    if (m->n_gpus == 0 || b->devices == 1)
        set(s, "cluster.node.intra_link", "%s", out->host_link.id);

    /* Network: the fastest physical port, as Ethernet. */
    match_by_number(cat, CATALOG_LINK, "eth", "bw_gbs", m->nic_gbps > 0 ? m->nic_gbps / 8 : 0.125,
                    &out->nic);
    snprintf(b->found, sizeof b->found,
             m->nic_gbps > 0 ? "%.0f Gbit/s port" : "no link speed found", m->nic_gbps);
    note_match(out, "network", b->found, &out->nic);
    set(s, "cluster.node.nic", "%s", out->nic.id);
    set(s, "cluster.node.nics_per_node", "1");
}

/* A VM's disk: the cloud volume entry stands in for its rate until the
 * read test measures it. */
static void note_virtual_disk(struct builder *b, const struct probe_disk *disk)
{
    struct probe_result *out = b->out;
    memset(&out->storage, 0, sizeof out->storage);
    snprintf(out->storage.id, sizeof out->storage.id, "%s",
             catalog_storage(b->cat, "cloud-block") ? "cloud-block" : "hdd");
    append(out->comments, sizeof out->comments,
           "#   %-12s %s, virtual disk (%s), %.0f GB -> %s (%s)\n", "disk", disk->name,
           disk->virtual_kind, disk->size_gb, out->storage.id,
           b->m->read_gbs > 0 ? "its rate measured, below"
                              : "a VM disk's rate is the provider's: --measure DIR measures it");
}

/* The local disk: the first NVMe drive, else SSD, else a VM's disk, else
 * a spinning disk. */
static void build_disk(struct builder *b)
{
    const struct probe_machine *m = b->m;
    const struct catalog *cat = b->cat;
    struct probe_result *out = b->out;
    struct setup *s = b->s;
    const struct probe_disk *disk = NULL;
    for (int kind = PROBE_DISK_NVME; kind <= PROBE_DISK_HDD && !disk; kind++)
        for (size_t i = 0; i < m->n_disks && !disk; i++)
            if (m->disks[i].kind == kind)
                disk = &m->disks[i];
    if (disk && disk->kind == PROBE_DISK_VIRTUAL) {
        note_virtual_disk(b, disk);
    } else if (disk) {
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
        snprintf(b->found, sizeof b->found, "%s, %s, %.0f GB", disk->name,
                 disk->kind == PROBE_DISK_NVME  ? "NVMe"
                 : disk->kind == PROBE_DISK_SSD ? "SSD"
                                                : "HDD",
                 disk->size_gb);
        note_match(out, "disk", b->found, &out->storage);
    } else {
        append(out->comments, sizeof out->comments, "#   %-12s none found (the default tier)\n",
               "disk");
    }
    if (disk) {
        set(s, "cluster.node.local_storage", "%s", out->storage.id);
        set(s, "cluster.storage", "%s", out->storage.id);
        set(s, "data.source", "local");
    }
    if (m->read_gbs > 0) {
        /* The model reads a local source at its catalog rate; the measured
         * rate is the storage tier's (storage_bw_gbs), so samples come from
         * that tier, which on one machine is the same disk. */
        set(s, "cluster.storage_bw_gbs", "%.4g", m->read_gbs);
        set(s, "data.source", "shared");
        append(out->comments, sizeof out->comments,
               "#   %-12s sequential read measured at %.2f GB/s in the directory given\n",
               "read test", m->read_gbs);
    }
}

/* The rest of the setup: one machine, a small model. */
static void build_rest(struct builder *b)
{
    const struct probe_machine *m = b->m;
    struct setup *s = b->s;
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
    set(s, "training.global_batch", "%d", 8 * b->devices);
    set(s, "training.micro_batch", "1");
    set(s, "training.zero_stage", "0");
    set(s, "training.tensor_parallel", "1");
    set(s, "training.pipeline_parallel", "1");
    set(s, "training.tokens", "1e9");
    if (m->n_gpus == 0)
        set(s, "training.flash_attention", "false");
    for (size_t i = 0; i < sizeof train_formats / sizeof train_formats[0]; i++)
        if (b->chosen.peak_tflops[train_formats[i]] > 0) {
            set(s, "training.precision", "%s", precision_names[train_formats[i]]);
            break;
        }
}

bool probe_build(const struct probe_machine *raw, const struct catalog *cat, bool new_entries,
                 struct probe_result *out, char *err, size_t err_len)
{
    /* Names may come from anywhere (a caller, a hostile tool): printable
     * ASCII only from here on, as the parsers already ensure. */
    static struct probe_machine clean;
    clean = *raw;
    probe_copy_clean(clean.cpu_model, sizeof clean.cpu_model, raw->cpu_model,
                     strnlen(raw->cpu_model, sizeof raw->cpu_model));
    if (clean.n_gpus > PROBE_MAX_GPUS)
        clean.n_gpus = PROBE_MAX_GPUS;
    for (size_t i = 0; i < clean.n_gpus; i++)
        probe_copy_clean(clean.gpus[i].name, sizeof clean.gpus[i].name, raw->gpus[i].name,
                         strnlen(raw->gpus[i].name, sizeof raw->gpus[i].name));
    const struct probe_machine *m = &clean;
    memset(out, 0, sizeof *out);
    if (catalog_count(cat, CATALOG_ACCELERATOR) == 0 || catalog_count(cat, CATALOG_CPU) == 0) {
        snprintf(err, err_len, "the catalog has no accelerators or CPUs to match against");
        return false;
    }
    static struct builder b;
    memset(&b, 0, sizeof b);
    b.m = m, b.cat = cat, b.new_entries = new_entries, b.out = out, b.s = &out->setup;
    setup_defaults(b.s);
    append(out->comments, sizeof out->comments,
           "# Written by mlviz probe: this machine as a setup.\n");
    if (m->gpu_tool[0] && m->n_gpus > 0)
        append(out->comments, sizeof out->comments, "# GPUs from %s; ", m->gpu_tool);
    else if (m->gpu_tool[0])
        append(out->comments, sizeof out->comments, "# %s reported no GPUs; ", m->gpu_tool);
    else if (m->gpu_tool_rejected[0])
        append(out->comments, sizeof out->comments,
               "# %.16s was found, but its answer was not used (see its message); no GPUs; ",
               m->gpu_tool_rejected);
    else
        append(out->comments, sizeof out->comments, "# No GPU tool found (nvidia-smi, rocm-smi); ");
    append(out->comments, sizeof out->comments, "CPU and memory from /proc, disks from /sys.\n");
    append(out->comments, sizeof out->comments, "# Found and matched to the catalog:\n");

    build_cpu(&b);
    /* Accelerators: the GPUs of the first model found, or the CPU itself. */
    if (!(m->n_gpus > 0 ? build_gpus(&b, err, err_len) : build_cpu_devices(&b, err, err_len)))
        return false;
    set(b.s, "cluster.node.accelerator", "%s", out->accel.id);
    set(b.s, "cluster.node.accelerators_per_node", "%d", b.devices > 1024 ? 1024 : b.devices);
    set(b.s, "cluster.nodes", "1");
    build_links(&b);
    build_disk(&b);
    build_rest(&b);
    if (b.accel_entries[0])
        append(out->catalog_yaml, sizeof out->catalog_yaml, "accelerators:\n%s", b.accel_entries);
    if (b.cpu_entries[0])
        append(out->catalog_yaml, sizeof out->catalog_yaml, "cpus:\n%s", b.cpu_entries);
    return true;
}
