/* commands: the table of the commands and their options, and lookups in it
 * (the texts made from it are in commands_text.c). */
#include "commands.h"

#include <string.h>

#include "cli.h"
#include "collective.h"
#include "schedule.h"
#include "tui.h"

/* Limits the options share with the code that uses their values. */
#define MAX_SEED         18446744073709551615.0 /* 2^64 - 1 */
#define MAX_DURATION_S   1e9
#define MIN_TICK_S       1e-6
#define MAX_TICK_S       60.0
#define MAX_DEVICES      1e7
#define MAX_FRAMES       2147483647.0
#define SERVE_MAX_S      86400.0
#define TOP_MAX          1000.0
#define THREADS_MAX      64.0
#define LUA_MAX_BUDGET   1.8e19
#define LUA_MIN_MEMORY   1048576.0
#define LUA_MAX_MEMORY   1e13
#define LUA_MAX_TIMEOUT  1e9
#define COLL_MAX_BYTES   1e15
#define VIEW_SPEED_MAX_X 86400.0

/* One row of an option table, by the type of its value. */
#define SWITCH(n, h)                                                                               \
    {                                                                                              \
        .name = n, .help = h                                                                       \
    }
#define TEXT(n, mv, a, h)                                                                          \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_TEXT, .arg = a, .help = h                         \
    }
#define NAMES(n, mv, list, h)                                                                      \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_TEXT, .arg = ARG_NAMES, .words = list, .help = h  \
    }
#define COUNT(n, mv, lo, hi, h)                                                                    \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_COUNT, .min = lo, .max = hi, .arg = ARG_ANY,      \
        .help = h                                                                                  \
    }
#define NUMBER(n, mv, lo, hi, fl, h)                                                               \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_NUMBER, .min = lo, .max = hi, .arg = ARG_ANY,     \
        .flags = fl, .help = h                                                                     \
    }
#define DURATION(n, mv, lo, hi, h)                                                                 \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_DURATION, .min = lo, .max = hi, .arg = ARG_ANY,   \
        .help = h                                                                                  \
    }
#define BYTES(n, mv, lo, hi, h)                                                                    \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_BYTES, .min = lo, .max = hi, .arg = ARG_ANY,      \
        .help = h                                                                                  \
    }
#define CHOICE(n, list, h)                                                                         \
    {                                                                                              \
        .name = n, .value = VALUE_CHOICE, .arg = ARG_WORDS, .words = list, .help = h               \
    }
#define ASSIGN(n, mv, a, example, h)                                                               \
    {                                                                                              \
        .name = n, .metavar = mv, .value = VALUE_ASSIGN, .arg = a, .flags = COMMANDS_REPEAT,       \
        .help = h, .sample = example                                                               \
    }

#define FORMAT  CHOICE("--format", "@formats", "output format (default text)")
#define CATALOG TEXT("--catalog", "DIR", ARG_DIR, "an extra catalog directory")
#define SET                                                                                        \
    ASSIGN("--set", "PATH=VALUE", ARG_FIELD, "training.micro_batch=1",                             \
           "change a setup field, as in the file (repeatable; see mlviz fields)")
#define MODEL                                                                                      \
    NAMES("--model", "CONFIG.json|NAME", "models",                                                 \
          "the model from a Hugging Face config.json or a shipped one")
#define STRICT SWITCH("--strict", "exit 3 when the setup cannot run")

/* The Lua commands' options, shared by run and play. */
#define LUA_OPTIONS                                                                                \
    SWITCH("--trust", "lift the sandbox (full standard library, any file)"),                       \
        COUNT("--seed", "N", 0, MAX_SEED, "seed of math.random and of simulations (default 42)"),  \
        NUMBER("--budget", "N", 1, LUA_MAX_BUDGET, 0, "instruction budget (default 1e9)"),         \
        BYTES("--memory", "SIZE", LUA_MIN_MEMORY, LUA_MAX_MEMORY,                                  \
              "memory cap, e.g. 256MiB (the default)"),                                            \
        NUMBER("--timeout", "SECONDS", 0, LUA_MAX_TIMEOUT, COMMANDS_ABOVE_MIN,                     \
               "wall-clock limit of the script's own running time (default 600)"),                 \
        TEXT("--out", "DIR", ARG_DIR,                                                              \
             "where write_csv/write_json write (default: mlviz-out, created on the first write; "  \
             "with --trust the current directory)"),                                               \
        CATALOG

/* The interactive view: `mlviz [options]`; play and lesson take these too
 * (but --tour). */
static const struct commands_spec view = {
    "",
    cmd_view,
    "open the interactive pipeline view",
    "",
    NULL,
    NULL,
    NULL,
    0,
    {{.name = "--setup",
      .alias = "-c",
      .metavar = "FILE|PRESET",
      .value = VALUE_TEXT,
      .arg = ARG_NAMES,
      .words = "presets",
      .help = "the setup to show (default: the 'default' preset)",
      .sample = "default"},
     SET,
     CATALOG,
     {.name = "--tour", .flags = COMMANDS_VIEW_ONLY, .help = "start in tour mode"},
     SWITCH("--infer", "start in the inference mode (serving: prefill, decode, KV cache; key i)"),
     COUNT("--frames", "N", 1, MAX_FRAMES, "quit after N frames (captures, tests)"),
     NUMBER("--speed", "X", 0, VIEW_SPEED_MAX_X, COMMANDS_ABOVE_MIN,
            "simulated seconds a second, at most 86400 (play keeps it)"),
     {.name = "--theme",
      .value = VALUE_CHOICE,
      .arg = ARG_NAMES,
      .words = "@themes",
      .help = "colours: light suits light backgrounds (automatic from COLORFGBG), contrast "
              "projectors"},
     {.name = "--mono",
      .alias = "--no-color",
      .help = "no colour; also automatic when NO_COLOR is set"},
     SWITCH("--ascii", "ASCII boxes and glyphs (automatic without UTF-8)"),
     SWITCH("--no-mouse", "leave the mouse to the terminal (text selection)")}};

static const struct commands_spec specs[] = {
    {"catalog",
     cmd_catalog,
     "hardware tables (accelerators, cpus, storage, links, cooling, software, serving)",
     "[accelerators|cpus|storage|links|cooling|software|serving]",
     "accelerators cpus storage links cooling software serving",
     NULL,
     NULL,
     0,
     {FORMAT, CATALOG}},
    {"check",
     cmd_check,
     "load a setup, print it and its sanity checks",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     NULL,
     0,
     {SET, FORMAT, CATALOG}},
    {"eval",
     cmd_eval,
     "the analytic model: step time, bottleneck, memory, power, cost, reliability",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     NULL,
     0,
     {MODEL, SET, STRICT,
      SWITCH(
          "--schedule",
          "the simulated step schedule: each stage's passes, sends and idle time (text or json)"),
      CHOICE("--schedule-kind", "@schedules",
             "the schedule --schedule simulates (default auto: the setup's own)"),
      FORMAT, CATALOG}},
    {"infer",
     cmd_infer,
     "serving the model: time to first token, per output token, throughput, KV cache, $/Mtok",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     NULL,
     0,
     {MODEL, SET, STRICT,
      DURATION("--serve", "DURATION", 1, SERVE_MAX_S,
               "play the deployment out over time (Poisson arrivals, continuous batching): "
               "percentiles and SLO attainment"),
      COUNT("--seed", "N", 0, 9e15, "seed of the arrivals (default 42)"), FORMAT, CATALOG}},
    {"collective",
     cmd_collective,
     "the time of one collective operation over N devices on a link",
     "",
     "",
     NULL,
     NULL,
     0,
     {CHOICE("--op", "@ops", "the operation (default all-reduce)"),
      BYTES("--size", "BYTES", 1, COLL_MAX_BYTES, "the buffer, e.g. 1GiB (the default)"),
      COUNT("--devices", "N", 2, MAX_DEVICES, "devices taking part (default 8)"),
      NAMES("--setup", "FILE|PRESET", "presets", "time it on this setup's links"),
      TEXT("--link", "ID", ARG_ANY, "time it on this catalog link (mlviz catalog links)"), FORMAT,
      CATALOG}},
    {"sim",
     cmd_sim,
     "simulate a run over time: jitter, failures, thermals, events",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     NULL,
     0,
     {SET,
      DURATION("--duration", "6h", 0, MAX_DURATION_S,
               "simulated time (default 6h, at most 1e9 s and 1e8 steps; a run that takes more "
               "than a second says how long)"),
      COUNT("--seed", "N", 0, MAX_SEED, "seed of jitter and failures (default 1)"),
      TEXT("--events", "FILE", ARG_FILE, "events to play (YAML: at, what)"),
      SWITCH("--series", "the sampled time series (CSV, or inside the JSON)"),
      DURATION("--sample", "1s", MIN_TICK_S, MAX_DURATION_S,
               "sample interval of the series (default 1 s, a minute past two hours)"),
      {.name = "--tick",
       .metavar = "auto|TIME",
       .value = VALUE_DURATION,
       .min = MIN_TICK_S,
       .max = MAX_TICK_S,
       .arg = ARG_ANY,
       .flags = COMMANDS_AUTO,
       .help = "the step loop's tick, 1 us to 60 s; auto (the default): the coarsest that "
               "leaves the results within 0.01% (coarser past 1e8 ticks), said in the output"},
      SWITCH("--no-jitter", "no step-time jitter or stragglers"),
      SWITCH("--no-failures", "no device or node failures"),
      SWITCH("--no-thermal", "no thermal model (no throttling)"),
      FORMAT,
      CATALOG}},
    {"run",
     cmd_run,
     "run a Lua scenario headless",
     "SCRIPT.lua",
     "@scenarios",
     "[--name=value ...] [args...]",
     "Runs a Lua scenario headless. SCRIPT may be a scenario name (see 'mlviz scenarios'); "
     "--name=value sets a parameter the script declares (SCRIPT --help lists them).",
     COMMANDS_SCRIPT_WORDS | COMMANDS_OWN_HELP,
     {LUA_OPTIONS}},
    {"play",
     cmd_play,
     "play a Lua scenario in the interactive view",
     "SCRIPT.lua",
     "@scenarios",
     "[--name=value ...] [args...]",
     "Plays a Lua scenario in the interactive view. SCRIPT may be a scenario name (see 'mlviz "
     "scenarios'); --name=value sets a parameter the script declares (SCRIPT --help lists them).",
     COMMANDS_SCRIPT_WORDS | COMMANDS_OWN_HELP | COMMANDS_VIEW_OPTIONS,
     {LUA_OPTIONS}},
    {"lesson",
     cmd_lesson,
     "present setups with captions (no Lua needed)",
     "FILE.yaml",
     NULL,
     NULL,
     NULL,
     COMMANDS_VIEW_OPTIONS,
     {{0}}},
    {"scenarios", cmd_scenarios, "list the shipped scenarios", "", "", NULL, NULL, 0, {FORMAT}},
    {"fields",
     cmd_fields,
     "every setup field: path, default, range, help",
     "",
     "",
     NULL,
     NULL,
     0,
     {FORMAT, SWITCH("--md", "the setup and report fields as the markdown of docs/")}},
    {"keys",
     cmd_keys,
     "the key bindings of the interactive view",
     "",
     "",
     NULL,
     NULL,
     0,
     {SWITCH("--man", "the keys as man-page roff"),
      SWITCH("--md", "the keys as the markdown of docs/TUI.md")}},
    {"options",
     cmd_options,
     "the options of the interactive view; every command's synopsis",
     "",
     "",
     NULL,
     NULL,
     0,
     {SWITCH("--man", "the view's options as man-page roff"),
      SWITCH("--md", "the view's options as the markdown of docs/"),
      SWITCH("--synopsis", "every command's synopsis as man-page roff (the SYNOPSIS of mlviz.1)"),
      SWITCH("--usage", "every command's usage line (README's command-line block)"),
      SWITCH("--commands", "every command but plan with its options as man-page roff (the "
                           "COMMANDS section of mlviz.1)"),
      SWITCH("--table", "every option of every command, tab-separated (for tests)")}},
    {"plan",
     cmd_plan,
     "search layouts and hardware: top N, Pareto front, shards; --infer: serving",
     "FILE|PRESET",
     "@presets",
     "[FILES... with --merge]",
     NULL,
     0,
     {CHOICE("--objective",
             "tokens_per_s days usd_total energy_mwh mfu usd_per_mtok output_tokens_per_s "
             "ttft_s tpot_s latency_s",
             "what to optimize (default tokens_per_s; with --infer usd_per_mtok)"),
      SWITCH("--infer",
             "search serving deployments (TP, PP, formats, batch) instead of training layouts"),
      ASSIGN("--vary", "PATH=LIST|LO..HI", ARG_FIELD, "training.micro_batch=1,2",
             "search a field over a,b,c, lo..hi (doubling) or lo..hi+step"),
      ASSIGN("--max", "NAME=VALUE", ARG_ANY, "devices=8",
             "keep configurations whose figure is at most VALUE (devices, days, usd_total, ...)"),
      SET,
      COUNT("--top", "N", 1, TOP_MAX, "configurations printed (1..1000, default 10)"),
      COUNT("--threads", "N", 1, THREADS_MAX, "worker threads (default: every core)"),
      {.name = "--shard",
       .metavar = "I/N",
       .value = VALUE_TEXT,
       .arg = ARG_ANY,
       .help = "search the I-th of N slices; a partial result",
       .sample = "0/2"},
      TEXT("--write-best", "FILE", ARG_FILE, "write rank 1 as a setup file"),
      TEXT("--write-top", "DIR", ARG_DIR, "write every printed rank as DIR/rank-NN.yaml"),
      SWITCH("--force", "let --write-best/--write-top replace existing files (never a link)"),
      SWITCH("--pareto", "also print the Pareto front (days, USD, MWh)"),
      SWITCH("--exhaustive", "evaluate every candidate (no pruning; slow)"),
      SWITCH("--merge", "combine the partial results of every shard"),
      {.name = "--quiet", .alias = "-q", .help = "no progress bar"},
      SWITCH("--man", "these options as man-page text (roff)"),
      FORMAT,
      CATALOG}},
    {"probe",
     cmd_probe,
     "this machine as a setup",
     "",
     "",
     NULL,
     "Describes this machine (CPU, memory, disks, network, GPUs through nvidia-smi or rocm-smi) "
     "as a setup matched to the catalog.",
     0,
     {TEXT("--write", "FILE", ARG_FILE,
           "save the setup (never over an existing file without --force) and merge catalog "
           "entries for devices the catalog lacks into $XDG_CONFIG_HOME/mlviz/catalog/probe.yaml"),
      SWITCH("--force", "let --write replace an existing file"),
      TEXT("--measure", "DIR", ARG_DIR,
           "time a sequential read of a scratch file in DIR (at most 64 MiB, 5 s)"),
      CATALOG}},
    {"completion",
     cmd_completion,
     "a shell completion script",
     "bash|zsh|fish",
     "bash zsh fish",
     NULL,
     NULL,
     0,
     {CHOICE("--list", "presets models scenarios themes",
             "the names the scripts offer, one a line (they run this as they complete)")}},
};
enum { N_SPECS = sizeof specs / sizeof specs[0] };

const struct commands_spec *commands_find(const char *name)
{
    if (!name || !name[0])
        return &view;
    for (size_t i = 0; i < N_SPECS; i++)
        if (strcmp(specs[i].name, name) == 0)
            return &specs[i];
    return NULL;
}

const struct commands_spec *commands_at(size_t i)
{
    return i < N_SPECS ? &specs[i] : NULL;
}

const struct commands_option *commands_option_at(const struct commands_spec *c, size_t i)
{
    size_t own = 0;
    while (c && own < COMMANDS_MAX_OPTIONS && c->options[own].name)
        own++;
    if (i < own)
        return &c->options[i];
    if (!c || !(c->flags & COMMANDS_VIEW_OPTIONS))
        return NULL;
    i -= own;
    /* The view's options, but those the command has itself (--set,
     * --catalog) and those for the view alone. */
    for (size_t k = 0; k < COMMANDS_MAX_OPTIONS && view.options[k].name; k++) {
        const struct commands_option *o = &view.options[k];
        bool shadowed = false;
        for (size_t j = 0; j < own; j++)
            shadowed = shadowed || strcmp(c->options[j].name, o->name) == 0;
        if (shadowed || (o->flags & COMMANDS_VIEW_ONLY))
            continue;
        if (i-- == 0)
            return o;
    }
    return NULL;
}

/* word is `name` or `name=value`. */
static bool names(const char *word, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n && strncmp(word, name, n) == 0 && (word[n] == '\0' || word[n] == '=');
}

const struct commands_option *commands_option_find(const struct commands_spec *c, const char *word)
{
    const struct commands_option *o;
    for (size_t i = 0; (o = commands_option_at(c, i)) != NULL; i++)
        if (names(word, o->name) || names(word, o->alias))
            return o;
    /* The view's own options are found too, so that play can say that
     * --tour is not one of its own. */
    for (size_t k = 0; c && (c->flags & COMMANDS_VIEW_OPTIONS) && k < COMMANDS_MAX_OPTIONS &&
                       view.options[k].name;
         k++)
        if (names(word, view.options[k].name) || names(word, view.options[k].alias))
            return &view.options[k];
    return NULL;
}

size_t commands_words(const char *words, const char **out, size_t max)
{
    static const char *const formats[] = {"text", "csv", "json", NULL};
    static char split[1024];
    const char *const *list = NULL;
    const char *sched[SCHED_KIND_COUNT + 1] = {NULL};
    size_t n = 0;
    if (!words)
        return 0;
    if (strcmp(words, "@formats") == 0) {
        list = formats;
    } else if (strcmp(words, "@ops") == 0) {
        list = collective_op_names;
    } else if (strcmp(words, "@themes") == 0) {
        list = cli_screen()->theme_names;
    } else if (strcmp(words, "@schedules") == 0) {
        for (int k = 0; k < SCHED_KIND_COUNT; k++)
            sched[k] = sched_kind_name(k);
        list = sched;
    }
    if (list || words[0] == '@') {
        for (size_t i = 0; list && list[i] && n < max; i++)
            out[n++] = list[i];
        return n;
    }
    /* A literal list: split a copy (the words stay valid until the next call). */
    snprintf(split, sizeof split, "%s", words);
    for (char *save = NULL, *w = strtok_r(split, " ", &save); w && n < max;
         w = strtok_r(NULL, " ", &save))
        out[n++] = w;
    return n;
}

void commands_metavar(const struct commands_option *o, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->metavar) {
        snprintf(buf, len, "%s", o->metavar);
        return;
    }
    if (o->value != VALUE_CHOICE)
        return;
    const char *w[64];
    size_t n = commands_words(o->words, w, 64), used = 0;
    for (size_t i = 0; i < n && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%s", i ? "|" : "", w[i]);
        used += k > 0 ? (size_t)k : 0;
    }
    if (!buf[0])
        snprintf(buf, len, "NAME");
}
