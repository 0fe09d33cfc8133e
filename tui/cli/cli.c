/* cli: what the headless commands share: messages, loading the catalog and
 * setups, and parsing options by the command table (commands.c). */
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "hfconfig.h"
#include "infile.h"
#include "model.h"
#include "paths.h"
#include "report.h"
#include "tui.h"

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

void cli_setup_path(const char *arg, char *buf, size_t len)
{
    paths_resolve(PATHS_PRESET, arg, buf, len);
}

/* A word that is neither a file nor a preset: the nearest preset name. */
static void suggest_preset(const char *arg)
{
    enum { MAX_PRESETS = 64 };
    char names[MAX_PRESETS][PATHS_NAME_LEN];
    const char *words[MAX_PRESETS];
    if (paths_is_path(PATHS_PRESET, arg))
        return;
    size_t n = paths_list(PATHS_PRESET, names, MAX_PRESETS);
    for (size_t i = 0; i < n; i++)
        words[i] = names[i];
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

int cli_set_add(struct cli_setup_args *a, const char *v)
{
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

/* A --model argument: a config.json path, or the name of a shipped one. */
static bool apply_model(struct setup *s, const char *model, bool named_only, char *title,
                        size_t title_len)
{
    char path[1200], err[1400];
    struct stat st;
    bool is_path =
        !named_only && (stat(model, &st) == 0 || strchr(model, '/') || strstr(model, ".json"));
    if (is_path)
        snprintf(path, sizeof path, "%s", model);
    else if (!hfconfig_named_path(model, path, sizeof path, err, sizeof err)) {
        char msg[1500];
        snprintf(msg, sizeof msg, "%s %s: %s", named_only ? "model.name" : "--model", model, err);
        print_message("mlviz: ", msg);
        return false;
    }
    if (!hfconfig_apply_file(s, path, err, sizeof err)) {
        char msg[1500];
        snprintf(msg, sizeof msg, "%s %s: %s", named_only ? "model.name" : "--model", model, err);
        print_message("mlviz: ", msg);
        return false;
    }
    if (title)
        hfconfig_title(path, title, title_len);
    return true;
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
    /* The setup file's model.name and model.hf_config, which are no fields
     * of the table but read a config (tui/cli's --model does the same). */
    if (strcmp(path, "model.name") == 0 || strcmp(path, "model.hf_config") == 0)
        return apply_model(s, eq + 1, strcmp(path, "model.name") == 0, NULL, 0);
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

/* A setup's name describes the model and cluster its file set up; when the
 * command line changes either, the title says what is evaluated instead:
 * "Llama 3 70B on 1x DGX H100" for `eval default --model llama3-70b`, the
 * cluster spelled out ("4 nodes x 8 NVIDIA H100 SXM5 80GB") once a cluster
 * field changed. A --set name=... keeps the user's own. */
static void retitle(struct setup *s, const struct resolved *r, const struct cli_setup_args *a,
                    const char *model_title)
{
    bool model = a->model != NULL, cluster = false;
    const char *set_title = NULL;
    char set_buf[FIELD_STR_LEN];
    for (int i = 0; i < a->n_sets; i++) {
        const char *v = a->sets[i];
        if (strncmp(v, "name=", 5) == 0)
            return;
        if (strncmp(v, "model.name=", 11) == 0 || strncmp(v, "model.hf_config=", 16) == 0) {
            model = true;
            char path[1200], err[1024];
            const char *value = strchr(v, '=') + 1;
            if (v[6] == 'n' && hfconfig_named_path(value, path, sizeof path, err, sizeof err))
                hfconfig_title(path, set_buf, sizeof set_buf);
            else
                hfconfig_title(value, set_buf, sizeof set_buf);
            set_title = set_buf;
        } else if (strncmp(v, "model.", 6) == 0) {
            model = true;
        }
        cluster = cluster || strncmp(v, "cluster.", 8) == 0;
    }
    if (!model && !cluster)
        return;
    const char *title = set_title && set_title[0] ? set_title : model_title;
    const char *on = strstr(s->name, " on ");
    char old_model[FIELD_STR_LEN], where[3 * FIELD_STR_LEN], name[5 * FIELD_STR_LEN];
    snprintf(old_model, sizeof old_model, "%.*s", on ? (int)(on - s->name) : (int)strlen(s->name),
             s->name);
    if (!title || !title[0])
        title = old_model;
    if (on && !cluster)
        snprintf(where, sizeof where, "%s", on + 4);
    else
        snprintf(where, sizeof where, "%d node%s x %d %s", s->cluster.nodes,
                 s->cluster.nodes == 1 ? "" : "s", s->cluster.node.accelerators_per_node,
                 r->accel->head.name);
    snprintf(name, sizeof name, "%s%s on %s", title,
             model && title == old_model ? " (changed)" : "", where);
    size_t n = strlen(name);
    if (n >= sizeof s->name) /* cut at a character's first byte */
        for (n = sizeof s->name - 1; n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80; n--)
            ;
    memcpy(s->name, name, n);
    s->name[n] = '\0';
}

bool cli_load_setup_args(const char *arg, const struct cli_setup_args *a, const struct catalog *cat,
                         struct setup *s, struct resolved *r)
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
    char model_title[FIELD_STR_LEN] = "";
    if (a && a->model && !apply_model(s, a->model, false, model_title, sizeof model_title))
        return false;
    for (int i = 0; a && i < a->n_sets; i++)
        if (!cli_apply_set(s, a->sets[i]))
            return false;
    /* training.tensor_parallel: auto, from the file or --set, becomes a
     * number with every other change made (engine/model/model_auto.c). */
    if (!model_settle_auto(s, cat, err, sizeof err) || !setup_resolve(s, cat, r, err, sizeof err)) {
        char msg[2300];
        snprintf(msg, sizeof msg, "%s%s: %s", path,
                 a && (a->n_sets || a->model) ? " with the command line's changes" : "", err);
        print_message("", msg);
        return false;
    }
    if (a)
        retitle(s, r, a, model_title);
    return true;
}

bool cli_load_setup(const char *arg, const struct catalog *cat, struct setup *s, struct resolved *r)
{
    return cli_load_setup_args(arg, NULL, cat, s, r);
}

int cli_common_apply(struct cli_common *c, const char *name, const char *v)
{
    if (strcmp(name, "--catalog") == 0) {
        c->catalog_dir = v;
        return 1;
    }
    if (strcmp(name, "--format") == 0) {
        if (!output_format_parse(v, &c->format)) {
            cli_error("--format must be text, csv or json (got '%s')", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* ---- the screen, reached through main()'s registration ---- */

static int no_screen_prepare(bool ascii)
{
    (void)ascii;
    cli_error("this program has no interactive screen linked in");
    return EXIT_RUNTIME;
}

static bool no_screen_theme(const char *name)
{
    (void)name;
    return false;
}

static int no_screen_run(struct tui_options *o)
{
    (void)o;
    return no_screen_prepare(false);
}

static void no_screen_hooks(struct luahost_hooks *hooks)
{
    (void)hooks;
}

static int no_screen_play(struct luahost **host, const char *script_path, struct tui_options *o)
{
    (void)host, (void)script_path, (void)o;
    return no_screen_prepare(false);
}

static void no_screen_keys(FILE *out, enum tui_keys_format format)
{
    (void)out, (void)format;
    cli_error("this program has no interactive screen linked in");
}

static const struct tui_entry no_screen = {
    no_screen_prepare, no_screen_theme, no_screen_run, no_screen_hooks,
    no_screen_play,    no_screen_keys,  NULL};
static const struct tui_entry *registered_screen;

void cli_use_screen(const struct tui_entry *screen)
{
    registered_screen = screen;
}

const struct tui_entry *cli_screen(void)
{
    return registered_screen ? registered_screen : &no_screen;
}
