/* cli: catalog, check, eval, collective and fields commands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "csv.h"
#include "hfconfig.h"
#include "infile.h"
#include "model.h"
#include "report.h"

/* Messages echo arguments and file contents: escape what a terminal would
 * obey. The message's own line breaks stay line breaks; each line is
 * escaped on its own. */
static void print_message(const char *prefix, const char *text)
{
    char line[2048], safe[4 * 2048 + 1];
    fputs(prefix, stderr);
    for (;;) {
        size_t n = strcspn(text, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), text);
        format_printable(safe, sizeof safe, line);
        fprintf(stderr, "%s\n", safe);
        if (text[n] != '\n' || text[n + 1] == '\0')
            break;
        text += n + 1;
    }
}

void cli_error(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_message("mlviz: ", msg);
}

struct catalog *cli_load_catalog(const char *extra_dir)
{
    struct catalog *cat = catalog_new();
    char err[1024];
    if (!cat) {
        cli_error("out of memory");
        return NULL;
    }
    if (!catalog_load_default(cat, extra_dir, err, sizeof err)) {
        print_message("", err);
        catalog_free(cat);
        return NULL;
    }
    if (catalog_count(cat, CATALOG_ACCELERATOR) == 0) {
        cli_error("no accelerators in the catalog at %s/assets/catalog (set MLVIZ_DATA to the "
                  "directory that holds assets/)",
                  mlviz_data_dir());
        catalog_free(cat);
        return NULL;
    }
    return cat;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void cli_setup_path(const char *arg, char *buf, size_t len)
{
    if (file_exists(arg) || strchr(arg, '/') || strstr(arg, ".yaml")) {
        snprintf(buf, len, "%s", arg);
        return;
    }
    snprintf(buf, len, "%s/scenarios/presets/%s.yaml", mlviz_data_dir(), arg);
    if (!file_exists(buf))
        snprintf(buf, len, "%s", arg); /* let the loader report the missing file */
}

static int compare_words(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A word that is neither a file nor a preset: the nearest preset name. */
static void suggest_preset(const char *arg)
{
    enum { MAX_PRESETS = 64 };
    char dir[1100], names[MAX_PRESETS][64];
    const char *words[MAX_PRESETS];
    size_t n = 0;
    if (strchr(arg, '/') || strstr(arg, ".yaml") || file_exists(arg))
        return;
    snprintf(dir, sizeof dir, "%s/scenarios/presets", mlviz_data_dir());
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_PRESETS) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len - 5 < sizeof names[0] && strcmp(e->d_name + len - 5, ".yaml") == 0) {
            snprintf(names[n], sizeof names[n], "%.*s", (int)(len - 5), e->d_name);
            words[n] = names[n];
            n++;
        }
    }
    closedir(d);
    qsort(words, n, sizeof words[0], compare_words);
    const char *near = fields_suggest_word(arg, words, n);
    char all[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof all; i++) {
        int w = snprintf(all + used, sizeof all - used, "%s%s", i ? ", " : "", words[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (near)
        cli_error("'%s' is not a file or a preset: did you mean '%s'? (presets: %s)", arg, near,
                  all);
    else if (n > 0)
        cli_error("'%s' is not a file or a preset (presets: %s)", arg, all);
}

int cli_set_option(int argc, char **argv, int *i, struct cli_setup_args *a)
{
    const char *v = cli_option_value(argc, argv, i, "--set");
    if (!v)
        return 0;
    if (!cli_value_given("--set", v))
        return -1;
    if (!strchr(v, '=')) {
        cli_error("--set %s: write PATH=VALUE, such as --set training.micro_batch=2", v);
        return -1;
    }
    if (a->n_sets >= CLI_MAX_SETS) {
        cli_error("--set given more than %d times", CLI_MAX_SETS);
        return -1;
    }
    a->sets[a->n_sets++] = v;
    return 1;
}

bool cli_apply_set(struct setup *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char path[256], err[1024];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof path) {
        cli_error("--set %s: write PATH=VALUE, such as --set training.micro_batch=2", arg);
        return false;
    }
    snprintf(path, sizeof path, "%.*s", (int)(eq - arg), arg);
    /* "auto" and the words of enums go through the same text parser as a
     * YAML scalar; every range check of the field table applies. */
    if (!setup_set(s, path, eq + 1, err, sizeof err)) {
        char msg[1400];
        snprintf(msg, sizeof msg, "--set %s: %s", arg, err);
        print_message("mlviz: ", msg);
        return false;
    }
    return true;
}

/* A --model argument: a config.json path, or the name of a shipped one. */
static bool apply_model(struct setup *s, const char *model)
{
    char path[1200], err[1400];
    struct stat st;
    bool is_path = stat(model, &st) == 0 || strchr(model, '/') || strstr(model, ".json");
    if (is_path)
        snprintf(path, sizeof path, "%s", model);
    else if (!hfconfig_named_path(model, path, sizeof path, err, sizeof err)) {
        char msg[1500];
        snprintf(msg, sizeof msg, "--model %s: %s", model, err);
        print_message("mlviz: ", msg);
        return false;
    }
    if (!hfconfig_apply_file(s, path, err, sizeof err)) {
        char msg[1500];
        snprintf(msg, sizeof msg, "--model %s: %s", model, err);
        print_message("mlviz: ", msg);
        return false;
    }
    return true;
}

bool cli_load_setup_args(const char *arg, const struct cli_setup_args *a,
                         const struct catalog *cat, struct setup *s, struct resolved *r)
{
    char path[1200], err[1024];
    bool loaded;
    if (strcmp(arg, "-") == 0) {
        /* Standard input: the same reader and cap as a file. */
        char *text;
        size_t len;
        snprintf(path, sizeof path, "<stdin>");
        loaded = infile_read_stdin(path, &text, &len, err, sizeof err);
        if (loaded && strlen(text) != len) {
            snprintf(err, sizeof err, "<stdin>: holds a NUL byte");
            loaded = false;
        }
        if (loaded)
            loaded = setup_load_string(s, path, text, cat, err, sizeof err);
        free(text);
    } else {
        cli_setup_path(arg, path, sizeof path);
        loaded = setup_load_file(s, path, cat, err, sizeof err);
    }
    if (!loaded) {
        print_message("", err);
        if (strcmp(arg, "-") != 0)
            suggest_preset(arg);
        return false;
    }
    if (a && a->model && !apply_model(s, a->model))
        return false;
    for (int i = 0; a && i < a->n_sets; i++)
        if (!cli_apply_set(s, a->sets[i]))
            return false;
    if (!setup_resolve(s, cat, r, err, sizeof err)) {
        char msg[2300];
        snprintf(msg, sizeof msg, "%s%s: %s", path,
                 a && (a->n_sets || a->model) ? " with the command line's changes" : "", err);
        print_message("", msg);
        return false;
    }
    return true;
}

bool cli_load_setup(const char *arg, const struct catalog *cat, struct setup *s,
                    struct resolved *r)
{
    return cli_load_setup_args(arg, NULL, cat, s, r);
}

/* What cli_option_value returns for a missing value (after saying so). */
static const char missing_value[1] = "";

const char *cli_option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        cli_error("%s needs a value", name);
        return missing_value;
    }
    return argv[++*i];
}

bool cli_value_given(const char *name, const char *v)
{
    if (v == missing_value)
        return false; /* already reported */
    if (!v[0]) {
        cli_error("%s needs a value (got an empty one)", name);
        return false;
    }
    return true;
}

bool cli_parse_count(const char *name, const char *v, unsigned long long min,
                     unsigned long long max, unsigned long long *out)
{
    if (!cli_value_given(name, v))
        return false;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    /* strtoull skips spaces and accepts a sign (and wraps "-1"): only digits. */
    bool digits = v[0] >= '0' && v[0] <= '9';
    if (!digits || *end || errno == ERANGE || n < min || n > max) {
        cli_error("%s must be a whole number from %llu to %llu (got '%s')", name, min, max, v);
        return false;
    }
    *out = n;
    return true;
}

int cli_common_option(int argc, char **argv, int *i, struct cli_common *c)
{
    const char *v;
    if ((v = cli_option_value(argc, argv, i, "--catalog"))) {
        if (!cli_value_given("--catalog", v))
            return -1;
        c->catalog_dir = v;
        return 1;
    }
    if ((v = cli_option_value(argc, argv, i, "--format"))) {
        if (!cli_value_given("--format", v))
            return -1;
        if (!output_format_parse(v, &c->format)) {
            cli_error("--format must be text, csv or json (got '%s')", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* Parses common options and collects positional arguments. Unknown options
 * are usage errors. Returns -1 on error. */
/* The setup options of check and eval: --set everywhere, --model and
 * --strict for eval. NULL for commands without a setup. */
struct setup_opts {
    struct cli_setup_args args;
    bool eval; /* --model and --strict apply */
    bool strict;
};

static int parse_args(int argc, char **argv, struct cli_common *c, const char **pos, int max_pos,
                      const char *usage, struct setup_opts *so)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        int k = cli_common_option(argc, argv, &i, c);
        if (k < 0)
            return -1;
        if (k > 0)
            continue;
        if (so && (k = cli_set_option(argc, argv, &i, &so->args)) != 0) {
            if (k < 0)
                return -1;
            continue;
        }
        const char *v;
        if (so && so->eval && (v = cli_option_value(argc, argv, &i, "--model"))) {
            if (!cli_value_given("--model", v))
                return -1;
            so->args.model = v;
            continue;
        }
        if (so && so->eval && strcmp(argv[i], "--strict") == 0) {
            so->strict = true;
            continue;
        }
        if (strcmp(argv[i], "-") == 0 && so && n < max_pos) {
            pos[n++] = argv[i]; /* the setup from standard input */
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s\n", usage);
            exit(EXIT_OK);
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("unknown option '%s' (usage: %s)", argv[i], usage);
            return -1;
        }
        if (n >= max_pos) {
            cli_error("unexpected argument '%s' (usage: %s)", argv[i], usage);
            return -1;
        }
        pos[n++] = argv[i];
    }
    return n;
}

/* ---- mlviz catalog ------------------------------------------------------------ */

/* Columns shown per kind in the text table (the rest is in csv/json). */
enum { TEXT_COLUMNS_MAX = 16 }; /* including the NULL that ends each list */
static const char *const text_columns[CATALOG_KIND_COUNT][TEXT_COLUMNS_MAX] = {
    {"id", "kind", "mem_gib", "mem_gb", "mem_bw_gbs", "fp32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops", "fp4_tflops",
     "int8_tops", "tdp_w", "link", "source", NULL},
    {"id", "cores", "mem_channels", "mem_bw_gbs", "pcie_lanes", "pcie_gen", "tdp_w", "vector_ext",
     "source", NULL},
    {"id", "scope", "read_gbs", "write_gbs", "latency_us", "source", NULL},
    {"id", "kind", "bw_gbs", "latency_us", "nccl_efficiency", "domain_max_devices", "source", NULL},
    {"id", "rack_kw_max", "pue", "overhead_fraction", "source", NULL},
    {"id", "kernels_per_layer_fwd", "elementwise_bytes_sbh", "runtime_reserved_gb",
     "step_overhead_s", "source", NULL},
};

/* One cell of the catalog's text table, safe for a terminal (a user
 * catalog may hold anything in its strings). */
static void catalog_cell(const struct field_table *t, const char *col, const void *entry,
                         char *buf, size_t len)
{
    char raw[512];
    fields_format(fields_find(t, col), entry, raw, sizeof raw);
    format_printable(buf, len, raw);
}

static void print_kind(const struct catalog *cat, int kind, int format, bool first)
{
    const struct field_table *t = catalog_fields((enum catalog_kind)kind);
    size_t n = catalog_count(cat, (enum catalog_kind)kind);
    char buf[4 * 512 + 1];
    if (format == FORMAT_CSV) {
        struct csv_row row;
        if (!first)
            fputc('\n', stdout);
        csv_row_begin(&row, stdout);
        csv_row_field(&row, "kind");
        for (size_t j = 0; j < t->count; j++)
            csv_row_field(&row, t->fields[j].path);
        csv_row_end(&row);
        for (size_t i = 0; i < n; i++) {
            const void *e = catalog_entry(cat, (enum catalog_kind)kind, i);
            csv_row_begin(&row, stdout);
            csv_row_field(&row, catalog_kind_singular[kind]);
            for (size_t j = 0; j < t->count; j++) {
                fields_format(&t->fields[j], e, buf, sizeof buf);
                csv_row_field(&row, strcmp(buf, "-") == 0 ? "" : buf);
            }
            csv_row_end(&row);
        }
        return;
    }
    /* Text: aligned columns; the source last, unpadded. */
    const char *const *cols = text_columns[kind];
    size_t ncols = 0;
    while (cols[ncols])
        ncols++;
    int width[TEXT_COLUMNS_MAX] = {0};
    for (size_t c = 0; c < ncols; c++) {
        width[c] = (int)strlen(cols[c]);
        for (size_t i = 0; i < n; i++) {
            catalog_cell(t, cols[c], catalog_entry(cat, (enum catalog_kind)kind, i), buf,
                         sizeof buf);
            if ((int)strlen(buf) > width[c])
                width[c] = (int)strlen(buf);
        }
    }
    if (!first)
        fputc('\n', stdout);
    printf("%s (%zu)\n", catalog_kind_names[kind], n);
    for (size_t c = 0; c < ncols; c++)
        if (c + 1 < ncols)
            printf("%-*s  ", width[c], cols[c]);
        else
            printf("%s\n", cols[c]);
    for (size_t i = 0; i < n; i++) {
        const void *e = catalog_entry(cat, (enum catalog_kind)kind, i);
        for (size_t c = 0; c < ncols; c++) {
            const struct field *f = fields_find(t, cols[c]);
            catalog_cell(t, cols[c], e, buf, sizeof buf);
            bool numeric = f->type == FIELD_NUM || f->type == FIELD_INT;
            if (c + 1 == ncols)
                printf("%s\n", buf);
            else
                printf(numeric ? "%*s  " : "%-*s  ", width[c], buf);
        }
    }
}

static void print_kind_json(struct json_writer *w, const struct catalog *cat, int kind)
{
    const struct field_table *t = catalog_fields((enum catalog_kind)kind);
    size_t n = catalog_count(cat, (enum catalog_kind)kind);
    json_open(w, catalog_kind_names[kind], true);
    for (size_t i = 0; i < n; i++) {
        const void *e = catalog_entry(cat, (enum catalog_kind)kind, i);
        json_open(w, NULL, false);
        for (size_t j = 0; j < t->count; j++) {
            const struct field *f = &t->fields[j];
            if (f->type == FIELD_NUM || f->type == FIELD_INT) {
                double v = fields_get_number(f, e);
                if ((f->flags & FIELD_NULLABLE) && v == FIELD_ABSENT)
                    json_key_num(w, f->path, NAN);
                else
                    json_key_num(w, f->path, v);
            } else if (f->type == FIELD_BOOL) {
                json_key_bool(w, f->path, fields_get_number(f, e) != 0);
            } else {
                json_key_str(w, f->path, fields_get_string(f, e));
            }
        }
        json_close(w, false);
    }
    json_close(w, true);
}

int cmd_catalog(int argc, char **argv)
{
    char usage[512];
    commands_usage("catalog", usage, sizeof usage);
    struct cli_common c = {0};
    const char *pos[1];
    int n = parse_args(argc, argv, &c, pos, 1, usage, NULL);
    if (n < 0)
        return EXIT_USAGE;
    int only = -1;
    if (n == 1) {
        for (int k = 0; k < CATALOG_KIND_COUNT; k++)
            if (strcmp(pos[0], catalog_kind_names[k]) == 0 ||
                strcmp(pos[0], catalog_kind_singular[k]) == 0)
                only = k;
        if (only < 0) {
            const char *near = fields_suggest_word(pos[0], catalog_kind_names, CATALOG_KIND_COUNT);
            cli_error("unknown catalog kind '%s'%s%s%s (usage: %s)", pos[0],
                      near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", usage);
            return EXIT_USAGE;
        }
    }
    struct catalog *cat = cli_load_catalog(c.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    if (c.format == FORMAT_JSON) {
        struct json_writer w;
        json_begin(&w, stdout, true);
        for (int k = 0; k < CATALOG_KIND_COUNT; k++)
            if (only < 0 || k == only)
                print_kind_json(&w, cat, k);
        json_finish(&w);
    } else {
        bool first = true;
        for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
            if (only >= 0 && k != only)
                continue;
            print_kind(cat, k, c.format, first);
            first = false;
        }
    }
    catalog_free(cat);
    return EXIT_OK;
}

/* ---- mlviz check / eval ----------------------------------------------------------- */

/* Room for a catalog id or name with every byte escaped. */
enum { PRINTABLE_MAX = 4 * FIELD_STR_LEN + 1 };

static int load_and_eval(int argc, char **argv, const char *usage, struct cli_common *c,
                         struct setup_opts *so, struct catalog **cat, struct setup *s,
                         struct resolved *r, struct model_report *o)
{
    const char *pos[1];
    int n = parse_args(argc, argv, c, pos, 1, usage, so);
    if (n < 0)
        return EXIT_USAGE;
    if (n == 0) {
        cli_error("missing setup file (usage: %s)", usage);
        return EXIT_USAGE;
    }
    *cat = cli_load_catalog(c->catalog_dir);
    if (!*cat)
        return EXIT_USAGE;
    if (!cli_load_setup_args(pos[0], &so->args, *cat, s, r)) {
        catalog_free(*cat);
        *cat = NULL;
        return EXIT_USAGE;
    }
    model_eval(s, r, o);
    return EXIT_OK;
}

/* The resolved cluster of `mlviz check` as JSON or as one CSV row. */
static void write_check_data(const struct setup *s, const struct resolved *r,
                             const struct model_report *o, int format)
{
    struct json_writer w;
    const double dev_mem_gb = r->accel->mem_gb;
    struct {
        const char *key;
        double value;
    } nums[] = {
        {"devices", o->devices},
        {"nodes", o->nodes},
        {"racks", o->racks},
        {"devices_per_node", s->cluster.node.accelerators_per_node},
        {"device_memory_gb", dev_mem_gb},
        {"device_memory_total_gb", dev_mem_gb * o->devices},
        {"host_ram_per_node_gb", s->cluster.node.host_ram_gb},
        {"host_ram_total_gb", s->cluster.node.host_ram_gb * s->cluster.nodes},
        {"intra_link_bw_gbs", r->intra_link->bw_gbs},
        {"host_link_bw_gbs", r->host_link->bw_gbs},
        {"nic_bw_gbs", r->nic ? r->nic->bw_gbs : 0.0},
        {"nics_per_node", s->cluster.node.nics_per_node},
        {"storage_read_gbs", o->stages.storage_bw_gbs},
        {"params", o->params},
        {"pcie_lanes_needed", o->pcie_lanes_needed},
        {"pcie_lanes_have", o->pcie_lanes_have},
        {"per_rack_kw", o->power.per_rack_kw},
        {"rack_cooling_limit_kw", o->power.rack_cooling_limit_kw},
        {"per_device_gb", o->memory.per_device_gb},
    };
    struct {
        const char *key;
        bool value;
    } checks[] = {
        {"host_ram_ok", o->host_ram_ok},
        {"pcie_lanes_ok", o->pcie_lanes_ok},
        {"rack_power_ok", !o->power.throttled},
        {"memory_fits", o->memory.fits},
    };
    size_t n_nums = sizeof nums / sizeof nums[0], n_checks = sizeof checks / sizeof checks[0];
    if (format == FORMAT_JSON) {
        json_begin(&w, stdout, true);
        json_key_str(&w, "name", s->name);
        json_key_bool(&w, "valid", true);
        json_key_str(&w, "accelerator", r->accel->head.id);
        json_key_str(&w, "cpu", r->cpu->head.id);
        json_key_str(&w, "intra_link", r->intra_link->head.id);
        json_key_str(&w, "nic", r->nic ? r->nic->head.id : "");
        json_key_str(&w, "storage", r->storage->head.id);
        json_key_str(&w, "cooling", r->cooling->head.id);
        for (size_t i = 0; i < n_nums; i++)
            json_key_num(&w, nums[i].key, nums[i].value);
        json_open(&w, "checks", false);
        for (size_t i = 0; i < n_checks; i++)
            json_key_bool(&w, checks[i].key, checks[i].value);
        json_close(&w, false);
        json_finish(&w);
        return;
    }
    struct csv_row row;
    char key[64];
    csv_row_begin(&row, stdout);
    csv_row_field(&row, "name");
    csv_row_field(&row, "accelerator");
    for (size_t i = 0; i < n_nums; i++)
        csv_row_field(&row, nums[i].key);
    for (size_t i = 0; i < n_checks; i++) {
        snprintf(key, sizeof key, "checks.%s", checks[i].key);
        csv_row_field(&row, key);
    }
    csv_row_end(&row);
    csv_row_field(&row, s->name);
    csv_row_field(&row, r->accel->head.id);
    for (size_t i = 0; i < n_nums; i++)
        csv_row_number(&row, nums[i].value, 10);
    for (size_t i = 0; i < n_checks; i++)
        csv_row_field(&row, checks[i].value ? "true" : "false");
    csv_row_end(&row);
}

int cmd_check(int argc, char **argv)
{
    char usage[512];
    commands_usage("check", usage, sizeof usage);
    struct cli_common c = {0};
    static struct setup_opts so;
    memset(&so, 0, sizeof so);
    struct catalog *cat;
    struct setup s;
    struct resolved r;
    struct model_report o;
    int rc = load_and_eval(argc, argv, usage, &c, &so, &cat, &s, &r, &o);
    if (rc != EXIT_OK)
        return rc;
    if (c.format != FORMAT_TEXT) {
        write_check_data(&s, &r, &o, c.format);
        catalog_free(cat);
        return EXIT_OK;
    }
    char name[PRINTABLE_MAX], id[PRINTABLE_MAX], id2[PRINTABLE_MAX], a[48], b[48], ram[48];
    format_printable(name, sizeof name, s.name);
    printf("%s: valid\n", name);
    format_printable(id, sizeof id, r.accel->head.id);
    format_printable(id2, sizeof id2, r.accel->head.name);
    format_fixed(a, sizeof a, r.accel->mem_gb, 0);
    format_fixed(b, sizeof b, r.accel->mem_gb * o.devices, 0);
    printf("  devices   %d x %s (%s), %s GB each, %s GB in all\n", o.devices, id, id2, a, b);
    format_si(ram, sizeof ram, s.cluster.node.host_ram_gb * 1e9 * s.cluster.nodes, "B");
    format_printable(id, sizeof id, r.cpu->head.id);
    format_fixed(a, sizeof a, s.cluster.node.host_ram_gb, 0);
    printf("  nodes     %d x (%d devices, %d x %s, %s GB host RAM), %s host RAM in all\n",
           s.cluster.nodes, s.cluster.node.accelerators_per_node, s.cluster.node.cpu_sockets, id,
           a, ram);
    format_printable(id, sizeof id, r.cooling->head.id);
    printf("  racks     %d (%d nodes per rack, %s cooling)\n", o.racks, s.facility.nodes_per_rack,
           id);
    format_printable(id, sizeof id, r.intra_link->head.id);
    format_printable(id2, sizeof id2, r.host_link->head.id);
    format_fixed(a, sizeof a, r.intra_link->bw_gbs, 0);
    format_fixed(b, sizeof b, r.host_link->bw_gbs, 1);
    printf("  links     inside node %s %s GB/s/dir; host %s %s GB/s/dir", id, a, id2, b);
    if (r.nic) {
        format_printable(id, sizeof id, r.nic->head.id);
        format_fixed(a, sizeof a, r.nic->bw_gbs, 1);
        printf("; network %d x %s %s GB/s/dir per node", s.cluster.node.nics_per_node, id, a);
    }
    format_printable(id, sizeof id, r.storage->head.id);
    format_printable(id2, sizeof id2, r.local_storage ? r.local_storage->head.id : "");
    format_fixed(a, sizeof a, o.stages.storage_bw_gbs, 0);
    printf("\n  storage   %s (%s GB/s read)%s%s\n", id, a, r.local_storage ? "; local " : "",
           id2);
    format_si(a, sizeof a, o.params, "");
    printf("  model     %s parameters; TP %d x CP %d x PP %d x DP %d", a, o.tp, o.cp, o.pp, o.dp);
    if (o.ep > 1)
        printf(" (EP %d carved out of DP x CP)", o.ep);
    printf("\n");
    printf("checks:\n");
    int warnings = report_write_checks(stdout, &s, &r, &o);
    if (warnings)
        printf("%d warning%s\n", warnings, warnings == 1 ? "" : "s");
    catalog_free(cat);
    return EXIT_OK;
}

int cmd_eval(int argc, char **argv)
{
    char usage[512];
    commands_usage("eval", usage, sizeof usage);
    struct cli_common c = {0};
    static struct setup_opts so;
    memset(&so, 0, sizeof so);
    so.eval = true;
    struct catalog *cat;
    struct setup s;
    struct resolved r;
    struct model_report o;
    int rc = load_and_eval(argc, argv, usage, &c, &so, &cat, &s, &r, &o);
    if (rc != EXIT_OK)
        return rc;
    if (c.format == FORMAT_JSON)
        report_write_json(stdout, &s, &r, &o);
    else if (c.format == FORMAT_CSV)
        report_write_csv(stdout, &s, &r, &o, true);
    else
        report_write_text(stdout, &s, &r, &o);
    if (!o.runnable && c.format == FORMAT_TEXT)
        cli_error("%s cannot run: %s", s.name, o.why_not);
    catalog_free(cat);
    /* --strict: scripts and CI gate on a setup that cannot run. */
    return so.strict && !o.runnable ? EXIT_CANNOT_RUN : EXIT_OK;
}

/* ---- mlviz collective ------------------------------------------------------------- */

#define COLLECTIVE_DEVICES_MAX 10000000ULL

int cmd_collective(int argc, char **argv)
{
    char usage[512];
    commands_usage("collective", usage, sizeof usage);
    struct cli_common c = {0};
    int op = COLL_ALL_REDUCE;
    double size = 1073741824.0;
    unsigned long long devices = 8;
    const char *setup_arg = NULL, *link_id = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int k = cli_common_option(argc, argv, &i, &c);
        if (k < 0)
            return EXIT_USAGE;
        if (k > 0)
            continue;
        if ((v = cli_option_value(argc, argv, &i, "--op"))) {
            if (!cli_value_given("--op", v))
                return EXIT_USAGE;
            op = -1;
            for (int j = 0; collective_op_names[j]; j++)
                if (strcmp(v, collective_op_names[j]) == 0)
                    op = j;
            if (op < 0) {
                cli_error("--op must be all-reduce, all-gather, reduce-scatter, broadcast or "
                          "all-to-all (got '%s')",
                          v);
                return EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--size"))) {
            if (!cli_value_given("--size", v))
                return EXIT_USAGE;
            if (!fields_parse_bytes(v, &size) || !(size >= 1) || size > 1e15) {
                cli_error("--size must be a byte count such as 1GiB, 64MB or 4096 (got '%s')", v);
                return EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--devices"))) {
            if (!cli_parse_count("--devices", v, 2, COLLECTIVE_DEVICES_MAX, &devices))
                return EXIT_USAGE;
        } else if ((v = cli_option_value(argc, argv, &i, "--setup"))) {
            if (!cli_value_given("--setup", v))
                return EXIT_USAGE;
            setup_arg = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--link"))) {
            if (!cli_value_given("--link", v))
                return EXIT_USAGE;
            link_id = v;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s\n", usage);
            return EXIT_OK;
        } else {
            cli_error("unknown argument '%s' (usage: %s)", argv[i], usage);
            return EXIT_USAGE;
        }
    }
    if (setup_arg && link_id) {
        cli_error("give --setup or --link, not both");
        return EXIT_USAGE;
    }
    struct catalog *cat = cli_load_catalog(c.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    struct collective_net net = {0};
    const char *what;
    if (link_id) {
        const struct link *l = catalog_link(cat, link_id);
        if (!l) {
            const char *near = catalog_suggest(cat, CATALOG_LINK, link_id);
            cli_error("unknown link '%s'%s%s%s (see: mlviz catalog links)", link_id,
                      near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            catalog_free(cat);
            return EXIT_USAGE;
        }
        /* One link type everywhere: a single flat group. */
        net.devices = (int)devices;
        net.per_node = (int)devices;
        net.intra_bw_gbs = l->bw_gbs * l->nccl_efficiency;
        net.intra_lat_s = l->latency_us * 1e-6;
        net.inter_bw_gbs = net.intra_bw_gbs;
        net.inter_lat_s = net.intra_lat_s;
        net.nvls_bw_gbs = l->nvls_bw_gbs;
        net.nvls_setup_s = l->nvls_setup_us * 1e-6;
        what = l->head.name;
    } else {
        struct setup s;
        struct resolved r;
        if (!cli_load_setup(setup_arg ? setup_arg : "default", cat, &s, &r)) {
            catalog_free(cat);
            return EXIT_USAGE;
        }
        int per = s.cluster.node.accelerators_per_node > 0 ? s.cluster.node.accelerators_per_node
                                                           : 1;
        net.devices = (int)devices;
        net.per_node = (unsigned long long)per < devices ? per : (int)devices;
        net.intra_bw_gbs = r.intra_link->bw_gbs * r.intra_link->nccl_efficiency;
        net.intra_lat_s = r.intra_link->latency_us * 1e-6;
        if (r.nic && s.cluster.node.nics_per_node > 0) {
            net.inter_bw_gbs = r.nic->bw_gbs * r.nic->nccl_efficiency *
                               s.cluster.node.nics_per_node / per;
            net.inter_lat_s = r.nic->latency_us * 1e-6;
        } else {
            net.inter_bw_gbs = net.intra_bw_gbs;
            net.inter_lat_s = net.intra_lat_s;
        }
        net.nvls_bw_gbs = r.intra_link->nvls_bw_gbs;
        net.nvls_setup_s = r.intra_link->nvls_setup_us * 1e-6;
        what = r.intra_link->head.name;
    }
    static const int algos[] = {ALLREDUCE_RING, ALLREDUCE_TREE, ALLREDUCE_HIERARCHICAL,
                                ALLREDUCE_NVLS};
    /* A link too slow to time the largest buffer is an input error, not a
     * table of ceilings. */
    for (size_t a = 0; a < 3; a++) {
        double t = collective_time((enum collective_op)op, algos[a], size, &net, NULL);
        if (!(t < COLLECTIVE_TIME_CEILING_S)) {
            cli_error("%s: the link bandwidth (%g GB/s inside a node, %g GB/s between nodes) is "
                      "zero or too small to time a collective",
                      what, net.intra_bw_gbs, net.inter_bw_gbs);
            catalog_free(cat);
            return EXIT_USAGE;
        }
    }
    double bus = collective_bus_factor((enum collective_op)op, (int)devices);
    struct json_writer w;
    struct csv_row row;
    char text[PRINTABLE_MAX];
    if (c.format == FORMAT_JSON) {
        fputs("[", stdout);
    } else if (c.format == FORMAT_CSV) {
        static const char *const header[] = {"algorithm", "size_bytes", "time_s", "algbw_gbs",
                                             "busbw_gbs"};
        csv_row_begin(&row, stdout);
        for (size_t k = 0; k < sizeof header / sizeof header[0]; k++)
            csv_row_field(&row, header[k]);
        csv_row_end(&row);
    } else {
        format_printable(text, sizeof text, what);
        printf("%s over %llu devices (%d per node), %s\n", collective_op_names[op], devices,
               net.per_node, text);
        printf("%-13s %14s %12s %12s %12s\n", "algorithm", "size_bytes", "time_us", "algbw_GB/s",
               "busbw_GB/s");
    }
    bool first = true;
    /* All-to-all has one algorithm (pairwise exchange posted at once). */
    size_t n_algos = op == COLL_ALL_TO_ALL                                  ? 1
                     : op == COLL_ALL_REDUCE && net.nvls_bw_gbs > 0 &&
                               net.per_node >= net.devices ? 4
                                                           : 3;
    for (size_t a = 0; a < n_algos; a++) {
        /* Powers of two up to the requested size, which is the last row. */
        for (double step = 8, bytes = step < size ? step : size; bytes > 0;
             step *= 2, bytes = step < size ? step : (bytes < size ? size : 0)) {
            double t = collective_time((enum collective_op)op, algos[a], bytes, &net, NULL);
            double algbw = t > 0 ? bytes / t / 1e9 : 0.0;
            const char *name = op == COLL_ALL_TO_ALL ? "pairwise" : allreduce_names[algos[a]];
            if (c.format == FORMAT_JSON) {
                memset(&w, 0, sizeof w);
                w.out = stdout;
                fputs(first ? "\n  " : ",\n  ", stdout);
                json_open(&w, NULL, false);
                json_key_str(&w, "algorithm", name);
                json_key_num(&w, "size_bytes", bytes);
                json_key_num(&w, "time_s", t);
                json_key_num(&w, "algbw_gbs", algbw);
                json_key_num(&w, "busbw_gbs", algbw * bus);
                json_close(&w, false);
            } else if (c.format == FORMAT_CSV) {
                csv_row_field(&row, name);
                csv_row_number(&row, bytes, 10);
                csv_row_number(&row, t, 9);
                csv_row_number(&row, algbw, 6);
                csv_row_number(&row, algbw * bus, 6);
                csv_row_end(&row);
            } else {
                char b[48], us[48], alg[48], busbw[48];
                format_fixed(b, sizeof b, bytes, 0);
                format_fixed(us, sizeof us, t * 1e6, 2);
                format_fixed(alg, sizeof alg, algbw, 2);
                format_fixed(busbw, sizeof busbw, algbw * bus, 2);
                printf("%-13s %14s %12s %12s %12s\n", name, b, us, alg, busbw);
            }
            first = false;
        }
    }
    if (c.format == FORMAT_JSON)
        fputs("\n]\n", stdout);
    catalog_free(cat);
    return EXIT_OK;
}

/* ---- mlviz fields ------------------------------------------------------------------ */

int cmd_fields(int argc, char **argv)
{
    char usage[512];
    commands_usage("fields", usage, sizeof usage);
    struct cli_common c = {0};
    const char *pos[1];
    if (parse_args(argc, argv, &c, pos, 0, usage, NULL) < 0)
        return EXIT_USAGE;
    const struct field_table *t = setup_fields();
    struct setup s;
    setup_defaults(&s);
    char def[128], type[256], lo[48], hi[48], stage[16];
    struct json_writer w;
    struct csv_row row;
    static const char *const csv_header[] = {"path", "type",  "unit",  "default", "min",
                                             "max",  "knob", "stage", "help"};
    if (c.format == FORMAT_JSON) {
        json_begin(&w, stdout, true), json_open(&w, "fields", true);
    } else if (c.format == FORMAT_CSV) {
        csv_row_begin(&row, stdout);
        for (size_t k = 0; k < sizeof csv_header / sizeof csv_header[0]; k++)
            csv_row_field(&row, csv_header[k]);
        csv_row_end(&row);
    }
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        fields_format(f, &s, def, sizeof def);
        fields_describe_type(f, type, sizeof type);
        bool knob = (f->flags & FIELD_KNOB) != 0;
        bool numeric = f->type == FIELD_INT || f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO;
        if (c.format == FORMAT_JSON) {
            json_open(&w, NULL, false);
            json_key_str(&w, "path", f->path);
            json_key_str(&w, "type", type);
            json_key_str(&w, "unit", f->unit);
            json_key_str(&w, "default", def);
            if (numeric) {
                json_key_num(&w, "min", f->min);
                json_key_num(&w, "max", f->max);
            }
            json_key_bool(&w, "knob", knob);
            json_key_num(&w, "stage", f->stage);
            json_key_str(&w, "help", f->help);
            json_close(&w, false);
        } else if (c.format == FORMAT_CSV) {
            output_format_number(lo, sizeof lo, f->min, 10);
            output_format_number(hi, sizeof hi, f->max, 10);
            snprintf(stage, sizeof stage, "%d", f->stage);
            csv_row_field(&row, f->path);
            csv_row_field(&row, type);
            csv_row_field(&row, f->unit);
            csv_row_field(&row, def);
            csv_row_field(&row, lo);
            csv_row_field(&row, hi);
            csv_row_field(&row, knob ? "yes" : "no");
            csv_row_field(&row, stage);
            csv_row_field(&row, f->help);
            csv_row_end(&row);
        } else {
            char range[112];
            fields_describe_range(f, range, sizeof range);
            printf("%-40s %-14s %-8s %-8s %s%s\n", f->path, def, f->unit, range, f->help,
                   knob ? " [knob]" : "");
        }
    }
    if (c.format == FORMAT_JSON) {
        json_close(&w, true);
        json_finish(&w);
    }
    return EXIT_OK;
}
