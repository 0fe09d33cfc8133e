/* commands: the headless commands' argument table and the usage lines built from it. */
#include "commands.h"

#include <string.h>

#include "cli.h"
#include "roff.h"

#define FORMAT                                                                                     \
    {                                                                                              \
        "--format", "text|csv|json", ARG_WORDS, "text csv json", 0, NULL                           \
    }
#define CATALOG                                                                                    \
    {                                                                                              \
        "--catalog", "DIR", ARG_DIR, NULL, 0, NULL                                                 \
    }
#define SET                                                                                        \
    {                                                                                              \
        "--set", "PATH=VALUE", ARG_FIELD, NULL, COMMANDS_REPEAT, NULL                              \
    }
/* The Lua commands' options, shared by run and play. */
#define LUA_OPTIONS                                                                                  \
    {"--trust", NULL, ARG_NONE, NULL, 0, "lift the sandbox (full standard library, any file)"},      \
        {"--seed", "N", ARG_ANY, NULL, 0, "seed of math.random and of simulations (default 42)"},    \
        {"--budget", "N", ARG_ANY, NULL, 0, "instruction budget (default 1e9)"},                     \
        {"--memory", "SIZE", ARG_ANY, NULL, 0, "memory cap, e.g. 256MiB (the default)"},             \
        {"--timeout", "SECONDS", ARG_ANY,                                                            \
         NULL,        0,         "wall-clock limit of the script's own running time (default 600)"}, \
        {"--out",                                                                                    \
         "DIR",                                                                                      \
         ARG_DIR,                                                                                    \
         NULL,                                                                                       \
         0,                                                                                          \
         "where write_csv/write_json write (default: mlviz-out, created on the first write; "        \
         "with --trust the current directory)"},                                                     \
    {                                                                                                \
        "--catalog", "DIR", ARG_DIR, NULL, 0, "an extra catalog directory"                           \
    }

static const struct commands_spec specs[] = {
    {"catalog",
     cmd_catalog,
     "hardware tables (accelerators, cpus, storage, links, cooling, software, serving)",
     "[accelerators|cpus|storage|links|cooling|software|serving]",
     "accelerators cpus storage links cooling software serving",
     NULL,
     {FORMAT, CATALOG}},
    {"check",
     cmd_check,
     "load a setup, print it and its sanity checks",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     {SET, FORMAT, CATALOG}},
    {"eval",
     cmd_eval,
     "the analytic model: step time, bottleneck, memory, power, cost, reliability",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     {{"--model", "CONFIG.json|NAME", ARG_NAMES, "models", 0, NULL},
      SET,
      {"--strict", NULL, ARG_NONE, NULL, 0, NULL},
      {"--schedule", NULL, ARG_NONE, NULL, 0,
       "the simulated step schedule: each stage's passes, sends and idle time (text or json)"},
      {"--schedule-kind", "auto|gpipe|1f1b|interleaved|zb-h1", ARG_WORDS,
       "auto gpipe 1f1b interleaved zb-h1", 0,
       "the schedule --schedule simulates (default auto: the setup's own)"},
      FORMAT,
      CATALOG}},
    {"infer",
     cmd_infer,
     "serving the model: time to first token, per output token, throughput, KV cache, $/Mtok",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     {{"--model", "CONFIG.json|NAME", ARG_NAMES, "models", 0, NULL},
      SET,
      {"--strict", NULL, ARG_NONE, NULL, 0, NULL},
      {"--serve", "DURATION", ARG_ANY, NULL, 0,
       "play the deployment out over time (Poisson arrivals, continuous batching): "
       "percentiles and SLO attainment"},
      {"--seed", "N", ARG_ANY, NULL, 0, "seed of the arrivals (default 42)"},
      FORMAT,
      CATALOG}},
    {"collective",
     cmd_collective,
     "the time of one collective operation over N devices on a link",
     "",
     "",
     NULL,
     {{"--op", "all-reduce|all-gather|reduce-scatter|broadcast|all-to-all", ARG_WORDS,
       "all-reduce all-gather reduce-scatter broadcast all-to-all", COMMANDS_REQUIRED, NULL},
      {"--size", "BYTES", ARG_ANY, NULL, COMMANDS_REQUIRED, NULL},
      {"--devices", "N", ARG_ANY, NULL, COMMANDS_REQUIRED, NULL},
      {"--setup", "FILE", ARG_NAMES, "presets", 0, NULL},
      {"--link", "ID", ARG_ANY, NULL, 0, NULL},
      FORMAT,
      CATALOG}},
    {"sim",
     cmd_sim,
     "simulate a run over time: jitter, failures, thermals, events",
     "FILE|PRESET|-",
     "@presets",
     NULL,
     {SET,
      {"--duration", "6h", ARG_ANY, NULL, 0,
       "simulated time (default 6h, at most 1e9 s and 1e8 steps; a run that takes more than a "
       "second says how long)"},
      {"--seed", "N", ARG_ANY, NULL, 0, NULL},
      {"--events", "FILE", ARG_FILE, NULL, 0, NULL},
      {"--series", NULL, ARG_NONE, NULL, 0, NULL},
      {"--sample", "1s", ARG_ANY, NULL, 0, NULL},
      {"--tick", "1ms", ARG_ANY, NULL, 0,
       "the step loop's tick, 1 us to 60 s (default 1 ms, coarser for runs past 1e7 ticks)"},
      {"--no-jitter", NULL, ARG_NONE, NULL, 0, NULL},
      {"--no-failures", NULL, ARG_NONE, NULL, 0, NULL},
      {"--no-thermal", NULL, ARG_NONE, NULL, 0, NULL},
      FORMAT,
      CATALOG}},
    {"run",
     cmd_run,
     "run a Lua scenario headless",
     "SCRIPT.lua",
     "@scenarios",
     "[--name=value ...] [args...]",
     {LUA_OPTIONS}},
    {"play",
     cmd_play,
     "play a Lua scenario in the interactive view",
     "SCRIPT.lua",
     "@scenarios",
     "[--name=value ...] [args...]",
     {LUA_OPTIONS}},
    {"lesson",
     cmd_lesson,
     "present setups with captions (no Lua needed)",
     "FILE.yaml",
     NULL,
     "[view options]",
     {{NULL, NULL, ARG_NONE, NULL, 0, NULL}}},
    {"scenarios", cmd_scenarios, "list the shipped scenarios", "", "", NULL, {FORMAT}},
    {"fields",
     cmd_fields,
     "every setup field: path, default, range, help",
     "",
     "",
     NULL,
     {FORMAT,
      {"--md", NULL, ARG_NONE, NULL, 0, "the setup and report fields as the markdown of docs/"}}},
    {"keys",
     cmd_keys,
     "the key bindings of the interactive view",
     "",
     "",
     NULL,
     {{"--man", NULL, ARG_NONE, NULL, 0, "the keys as man-page roff"},
      {"--md", NULL, ARG_NONE, NULL, 0, "the keys as the markdown of docs/TUI.md"}}},
    {"options",
     cmd_options,
     "the options of the interactive view",
     "",
     "",
     NULL,
     {{"--man", NULL, ARG_NONE, NULL, 0, "the options as man-page roff"},
      {"--md", NULL, ARG_NONE, NULL, 0, "the options as the markdown of docs/"},
      {"--synopsis", NULL, ARG_NONE, NULL, 0,
       "every command's synopsis as man-page roff (the SYNOPSIS of mlviz.1)"}}},
    {"plan",
     cmd_plan,
     "search layouts and hardware: top N, Pareto front, shards; --infer: serving",
     "FILE|PRESET",
     "@presets",
     "[--merge FILES...]",
     {{"--objective",
       "tokens_per_s|days|usd_total|energy_mwh|mfu|usd_per_mtok|output_tokens_per_s|ttft_s|tpot_s|"
       "latency_s",
       ARG_WORDS,
       "tokens_per_s days usd_total energy_mwh mfu usd_per_mtok output_tokens_per_s ttft_s tpot_s "
       "latency_s",
       0, "what to optimize (default tokens_per_s; with --infer usd_per_mtok)"},
      {"--infer", NULL, ARG_NONE, NULL, 0,
       "search serving deployments (TP, PP, formats, batch) instead of training layouts"},
      {"--vary", "PATH=LIST|LO..HI", ARG_FIELD, NULL, COMMANDS_REPEAT,
       "search a field over a,b,c, lo..hi (doubling) or lo..hi+step"},
      {"--max", "NAME=VALUE", ARG_ANY, NULL, COMMANDS_REPEAT,
       "keep configurations whose figure is at most VALUE (devices, days, usd_total, ...)"},
      SET,
      {"--top", "N", ARG_ANY, NULL, 0, "configurations printed (1..1000, default 10)"},
      {"--threads", "N", ARG_ANY, NULL, 0, "worker threads (default: every core)"},
      {"--shard", "I/N", ARG_ANY, NULL, 0, "search the I-th of N slices; a partial result"},
      {"--write-best", "FILE", ARG_FILE, NULL, 0, "write rank 1 as a setup file"},
      {"--write-top", "DIR", ARG_DIR, NULL, 0, "write every printed rank as DIR/rank-NN.yaml"},
      {"--force", NULL, ARG_NONE, NULL, 0,
       "let --write-best/--write-top replace existing files (never a link)"},
      {"--pareto", NULL, ARG_NONE, NULL, 0, "also print the Pareto front (days, USD, MWh)"},
      {"--exhaustive", NULL, ARG_NONE, NULL, 0, "evaluate every candidate (no pruning; slow)"},
      {"--merge", NULL, ARG_NONE, NULL, 0, "combine the partial results of every shard"},
      {"--quiet", NULL, ARG_NONE, NULL, 0, "no progress bar"},
      {"--man", NULL, ARG_NONE, NULL, 0, "these options as man-page text (roff)"},
      FORMAT,
      CATALOG}},
    {"probe",
     cmd_probe,
     "this machine as a setup",
     "",
     "",
     NULL,
     {{"--write", "FILE", ARG_FILE, NULL, 0, NULL},
      {"--force", NULL, ARG_NONE, NULL, 0, NULL},
      {"--measure", "DIR", ARG_DIR, NULL, 0, NULL},
      CATALOG}},
    {"completion",
     cmd_completion,
     "a shell completion script",
     "bash|zsh|fish",
     "bash zsh fish",
     NULL,
     {{"--list", "presets|models|scenarios|themes", ARG_WORDS, "presets models scenarios themes", 0,
       "the names the scripts offer, one a line (they run this as they complete)"}}},
};
enum { N_SPECS = sizeof specs / sizeof specs[0] };

const struct commands_spec *commands_find(const char *name)
{
    for (size_t i = 0; i < N_SPECS; i++)
        if (strcmp(specs[i].name, name) == 0)
            return &specs[i];
    return NULL;
}

const struct commands_spec *commands_at(size_t i)
{
    return i < N_SPECS ? &specs[i] : NULL;
}

void commands_list(FILE *out)
{
    for (size_t i = 0; i < N_SPECS; i++)
        fprintf(out, "  %-11s %s\n", specs[i].name, specs[i].summary);
}

/* A part of a synopsis in roff, in one font ("B": option names, "I":
 * arguments), escaped. */
static void roff_words(FILE *out, const char *font, const char *text)
{
    fprintf(out, "\\f%s", font);
    roff_escape(out, text);
    fputs("\\fR", out);
}

void commands_man_synopsis(FILE *out)
{
    fputs(".B mlviz\n[\\fIOPTIONS\\fR]\n", out);
    for (size_t i = 0; i < N_SPECS; i++) {
        const struct commands_spec *c = &specs[i];
        fprintf(out, ".br\n.B mlviz %s\n", c->name);
        const char *sep = "";
        if (c->positional[0]) {
            roff_words(out, "I", c->positional);
            sep = " ";
        }
        for (size_t k = 0; k < COMMANDS_MAX_OPTIONS && c->options[k].name; k++) {
            const struct commands_option *o = &c->options[k];
            bool required = (o->flags & COMMANDS_REQUIRED) != 0;
            fprintf(out, "%s%s", sep, required ? "" : "[");
            roff_words(out, "B", o->name);
            if (o->metavar) {
                fputc(' ', out);
                roff_words(out, "I", o->metavar);
            }
            fprintf(out, "%s%s", required ? "" : "]", o->flags & COMMANDS_REPEAT ? "..." : "");
            sep = " ";
        }
        if (c->tail) {
            fputs(sep, out);
            roff_escape(out, c->tail);
        }
        if (c->positional[0] || c->options[0].name || c->tail)
            fputc('\n', out);
    }
}

void commands_usage(const char *name, char *buf, size_t len)
{
    const struct commands_spec *c = commands_find(name);
    size_t used = 0;
    int n = snprintf(buf, len, "mlviz %s", name);
    used = n > 0 ? (size_t)n : 0;
    if (!c)
        return;
    if (c->positional[0] && used < len) {
        n = snprintf(buf + used, len - used, " %s", c->positional);
        used += n > 0 ? (size_t)n : 0;
    }
    for (size_t i = 0; i < COMMANDS_MAX_OPTIONS && c->options[i].name && used < len; i++) {
        const struct commands_option *o = &c->options[i];
        bool required = (o->flags & COMMANDS_REQUIRED) != 0;
        n = snprintf(buf + used, len - used, " %s%s%s%s%s%s", required ? "" : "[", o->name,
                     o->metavar ? " " : "", o->metavar ? o->metavar : "", required ? "" : "]",
                     o->flags & COMMANDS_REPEAT ? "..." : "");
        used += n > 0 ? (size_t)n : 0;
    }
    if (c->tail && used < len)
        snprintf(buf + used, len - used, " %s", c->tail);
}

void commands_option_help(FILE *out, const char *name)
{
    const struct commands_spec *c = commands_find(name);
    for (size_t i = 0; c && i < COMMANDS_MAX_OPTIONS && c->options[i].name; i++) {
        const struct commands_option *o = &c->options[i];
        if (!o->help)
            continue;
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
        fprintf(out, "  %-*s %s\n", COMMANDS_HELP_WIDTH, left, o->help);
    }
}
