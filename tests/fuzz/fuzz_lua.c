/* libFuzzer target: the Lua API under hostile arguments.
 *
 * The input becomes a small Lua program: its first byte picks the mode (raw
 * Lua text, a program built from a grammar of API calls run headless, or
 * the same run played the way `mlviz play` drives it), the following bytes
 * pick statements and their arguments from tables of awkward values (NaN,
 * infinities, 2^63, negative counts, deep tables, many sweep axes,
 * backtracking patterns, plan options...). Raw text is loaded from a file
 * as `mlviz run` loads it; a program of the grammar from memory (no file,
 * no describe pass), so one input costs about a millisecond. Each statement runs inside pcall, so
 * one error does not hide the rest. The host has a small instruction budget, memory cap and time
 * limit. Inputs must never crash, leak or trip a sanitizer; a failed run must carry a message.
 *
 * The script runs from a directory of its own holding setups that name
 * files outside it (model.hf_config absolute, with "..", through links to a
 * file and to a directory, dangling) and links to setups outside; a file
 * outside holds the word SECRET. A statement loads one of them and prints
 * the message: any SECRET in what a script prints or in an error aborts
 * (the sandbox read a file outside, docs/lua-api.md "The sandbox").
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *   FUZZ_LUA_SHOW=1 build-fuzz/fuzz_lua INPUT   prints the program it runs
 *
 * Run from the repository root (the catalog is read from assets/catalog, or
 * from $MLVIZ_DATA/assets/catalog). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "fuzz_shipped_catalog.h"
#include "luahost.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { PROGRAM_MAX = 16384, STATEMENTS_MAX = 24, PLAY_RESUMES_MAX = 16 };

/* Each input's limits: short, so an input that runs into one (an endless
 * loop, sim:run(1e9)) costs milliseconds, not the half second it did. */
#define INPUT_BUDGET       50000
#define INPUT_TIME_LIMIT_S 0.01

/* ---- reading the input ------------------------------------------------------------ */

struct input {
    const uint8_t *p;
    size_t left;
};

static unsigned next_byte(struct input *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static const char *pick(struct input *in, const char *const *list, size_t n)
{
    return list[next_byte(in) % n];
}

#define PICK(in, list) pick(in, list, sizeof list / sizeof *list)

static const char *const numbers[] = {
    "0",
    "1",
    "-1",
    "0.5",
    "3",
    "8",
    "1e9",
    "1e300",
    "-1e300",
    "0/0",
    "1/0",
    "-1/0",
    "2^53",
    "2^63",
    "-2^63",
    "math.maxinteger",
    "math.mininteger",
    "1e-9",
    "'90s'",
    "'2d'",
    "'x'",
    "-0.0",
    "65536",
    "1e15",
};

static const char *const paths[] = {
    "'cluster.nodes'",
    "'cluster.node.accelerator'",
    "'cluster.node.host_ram_gb'",
    "'cluster.storage_bw_gbs'",
    "'facility.pue'",
    "'facility.cooling'",
    "'model.layers'",
    "'model.seq_len'",
    "'name'",
    "'cluster.nodez'",
    "''",
    "'a.b.c.d.e.f'",
};

static const char *const words[] = {
    "'fail_device'",        "'fail_node'", "'cooling_loss'", "'set'",  "'stop'",  "'storage_slow'",
    "'tokens_per_s'",       "'ring'",      "'all-reduce'",   "'auto'", "'bogus'", "''",
    "string.rep('a', 300)", "'h100-sxm'",  "'default'",
};

static const char *const subjects[] = {
    "string.rep('a', 40)",  "string.rep('ab', 2000)", "'hello (world) [x]'", "''",
    "string.rep('(', 500)", "'key = value, k2 = 22'",
};

static const char pattern_chars[] = "a(b)%[]^$*+-?.1fdw ";

/* A pattern built from the input: special characters mixed with letters. */
static void add_pattern(char *out, size_t len, struct input *in)
{
    size_t n = next_byte(in) % 12, used = strlen(out);
    if (used + n * 2 + 4 >= len)
        return;
    out[used++] = '\'';
    for (size_t i = 0; i < n; i++) {
        char c = pattern_chars[next_byte(in) % (sizeof pattern_chars - 1)];
        if (c == '\\' || c == '\'')
            c = 'a';
        out[used++] = c;
    }
    out[used++] = '\'';
    out[used] = '\0';
}

static void add(char *out, size_t len, const char *text)
{
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s", text);
}

/* A table of the given nesting depth: {x = {x = ... 1}}. */
static void add_nested(char *out, size_t len, struct input *in, const char *key)
{
    int depth = (int)(next_byte(in) % 40);
    for (int i = 0; i < depth; i++) {
        add(out, len, "{");
        add(out, len, key);
        add(out, len, " = ");
    }
    add(out, len, PICK(in, numbers));
    for (int i = 0; i < depth; i++)
        add(out, len, "}");
}

/* A setup: set, build, get, copy. */
static void stmt_setup(char *st, size_t st_len, struct input *in, int kind)
{
    switch (kind) {
    case 0:
        snprintf(st, st_len, "s:set(%s, %s)", PICK(in, paths), PICK(in, numbers));
        break;
    case 1:
        snprintf(st, st_len, "s:set(%s, %s)", PICK(in, paths), PICK(in, words));
        break;
    case 2:
        add(st, st_len, "s:set(");
        add_nested(st, st_len, in, next_byte(in) & 1 ? "cluster" : "x");
        add(st, st_len, ")");
        break;
    case 3:
        add(st, st_len, "s = mlviz.setup(");
        add_nested(st, st_len, in, next_byte(in) & 1 ? "model" : "a");
        add(st, st_len, ")");
        break;
    case 4:
        snprintf(st, st_len, "local v = s:get(%s) s:eval()", PICK(in, paths));
        break;
    case 23:
        snprintf(st, st_len, "s = s:copy({cluster = {nodes = %s}})", PICK(in, numbers));
        break;
    }
}

/* A sim: events, callbacks, runs, series, closing. */
static void stmt_sim(char *st, size_t st_len, struct input *in, int kind)
{
    switch (kind) {
    case 5: {
        /* A callback that changes, runs or closes its own sim. */
        static const char *const bodies[] = {"x:set('cluster.nodes', %s)", "x:run(%s)", "x:close()",
                                             "collectgarbage()"};
        char body[256];
        snprintf(body, sizeof body, PICK(in, bodies), PICK(in, numbers));
        snprintf(st, st_len, "sim:at(%s, function(x) %s end)", PICK(in, numbers), body);
        break;
    }
    case 6:
        snprintf(st, st_len, "sim:at(%s, {event = %s, value = %s})", PICK(in, numbers),
                 PICK(in, words), PICK(in, numbers));
        break;
    case 7:
        snprintf(st, st_len, "sim:run(%s)", PICK(in, numbers));
        break;
    case 8:
        snprintf(st, st_len, "sim:close()");
        break;
    case 9:
        snprintf(st, st_len, "sim = mlviz.sim(s, {tick_s = %s, seed = %s, series_capacity = %s})",
                 PICK(in, numbers), PICK(in, numbers), PICK(in, numbers));
        break;
    case 10:
        snprintf(st, st_len,
                 "local t = sim:series(%s) local c = sim:counters() "
                 "local r = sim:report() local u = sim:setup() local k, a = sim:tick()",
                 PICK(in, words));
        break;
    case 21:
        snprintf(st, st_len, "sim = nil collectgarbage()");
        break;
    }
}

/* Sweeps and printing their rows. */
static void stmt_sweep(char *st, size_t st_len, struct input *in, int kind)
{
    switch (kind) {
    case 11:
        snprintf(st, st_len, "rows = mlviz.sweep(s, {{%s, {%s, %s}}, {%s, {%s}}})", PICK(in, paths),
                 PICK(in, numbers), PICK(in, numbers), PICK(in, paths), PICK(in, numbers));
        break;
    case 12: {
        int axes = (int)(next_byte(in) % 14);
        add(st, st_len, "local a = {} for i = 1, ");
        char num[16];
        snprintf(num, sizeof num, "%d", axes);
        add(st, st_len, num);
        add(st, st_len, " do a[i] = {'cluster.nodes', {1, 2}} end rows = mlviz.sweep(s, a)");
        break;
    }
    case 13:
        snprintf(st, st_len,
                 "local v = {} for i = 1, %u do v[i] = i end "
                 "rows = mlviz.sweep(s, {[%s] = v, [%s] = v, [%s] = v})",
                 next_byte(in) * 8, PICK(in, paths), PICK(in, paths), PICK(in, paths));
        break;
    case 24:
        snprintf(st, st_len, "if rows then mlviz.print_table(rows) end");
        break;
    }
}

/* Lua string patterns (the pattern guard). */
static void stmt_string(char *st, size_t st_len, struct input *in, int kind)
{
    switch (kind) {
    case 14:
        snprintf(st, st_len, "local r = {string.find(%s, ", PICK(in, subjects));
        add_pattern(st, st_len, in);
        add(st, st_len, ")}");
        break;
    case 15:
        snprintf(st, st_len, "local r = {(%s):match(", PICK(in, subjects));
        add_pattern(st, st_len, in);
        add(st, st_len, ", ");
        add(st, st_len, PICK(in, numbers));
        add(st, st_len, ")}");
        break;
    case 16:
        snprintf(st, st_len, "local r = string.gsub(%s, ", PICK(in, subjects));
        add_pattern(st, st_len, in);
        add(st, st_len, next_byte(in) & 1 ? ", '<%1%0>')" : ", function(a) return a end)");
        break;
    case 17:
        snprintf(st, st_len, "for a, b in string.gmatch(%s, ", PICK(in, subjects));
        add_pattern(st, st_len, in);
        add(st, st_len, ") do end");
        break;
    case 18:
        snprintf(st, st_len, "local r = string.rep(%s, %s, %s)", PICK(in, words), PICK(in, numbers),
                 PICK(in, words));
        break;
    }
}

/* Collectives, units, pause, a long loop. */
static void stmt_misc(char *st, size_t st_len, struct input *in, int kind)
{
    switch (kind) {
    case 19:
        snprintf(st, st_len, "mlviz.collective(%s, %s, %s, {devices = %s, per_node = %s})",
                 PICK(in, words), PICK(in, words), PICK(in, numbers), PICK(in, numbers),
                 PICK(in, numbers));
        break;
    case 20:
        snprintf(st, st_len,
                 "mlviz.parse_duration(%s) mlviz.format_duration(%s) "
                 "mlviz.format_si(%s, %s)",
                 PICK(in, words), PICK(in, numbers), PICK(in, numbers), PICK(in, words));
        break;
    case 22:
        snprintf(st, st_len, "pause()");
        break;
    case 27: {
        /* mlviz.plan over small spaces, one worker (a thread per input is
         * costly), with awkward options. */
        static const char *const varies[] = {
            "{'cluster.nodes=1..16'}",
            "{'training.tensor_parallel=1,2,4,8', 'training.pipeline_parallel=1,2'}",
            "{['cluster.nodes'] = {1, 2, 3}}",
            "{['cluster.node.accelerator'] = {'h100-sxm', 'b200', 'nope'}}",
            "{'cluster.nodes=0..-1'}",
            "{'x=1'}",
            "{}",
            "'cluster.nodes=1..8'",
        };
        static const char *const objectives[] = {"'days'", "'usd_total'", "'mfu'", "'nope'", "1"};
        snprintf(st, st_len,
                 "local p = mlviz.plan(s, {vary = %s, top = %s, threads = 1, objective = %s, "
                 "max = {days = %s}}) local _ = #p.top + #p.front",
                 PICK(in, varies), PICK(in, numbers), PICK(in, objectives), PICK(in, numbers));
        break;
    }
    case 28: {
        /* Presets, files and paths the sandbox must refuse. */
        static const char *const names[] = {"'default'",
                                            "'gpt3-175b-a100'",
                                            "'moe-h100'",
                                            "'nope'",
                                            "'../x.yaml'",
                                            "'/etc/passwd'",
                                            "'.'",
                                            "''",
                                            "1"};
        snprintf(st, st_len, "s = mlviz.load(%s)", PICK(in, names));
        break;
    }
    default:
        snprintf(st, st_len, "local n = 0 for i = 1, 3e6 do n = n + i end");
        break;
    }
}

/* Setups in the script's directory that name files outside (see the top). */
static const char *const outside_setups[] = {
    "'abs.yaml'",      "'dotdot.yaml'",    "'link.yaml'",        "'linkdir.yaml'",
    "'dangling.yaml'", "'setuplink.yaml'", "'sdir/secret.yaml'", "'mods.link'",
    "'sdir.secret'",   "'/etc/passwd'",    "'../../etc/passwd'", "'sdir'",
};

/* Loads one of them (mlviz.load, mlviz.setup{preset=} or require) and
 * prints the message, which the print hook checks. */
static void stmt_outside(char *st, size_t st_len, struct input *in)
{
    static const char *const how[] = {"mlviz.load(%s)", "mlviz.setup{preset = %s}", "require(%s)"};
    char call[256];
    snprintf(call, sizeof call, PICK(in, how), PICK(in, outside_setups));
    snprintf(st, st_len, "local ok, m = pcall(function() return %s end) print(tostring(m))", call);
}

/* One statement, wrapped in pcall: the kind comes from the next input byte. */
static void add_statement(char *out, size_t len, struct input *in)
{
    char st[2048] = "";
    int kind = next_byte(in) % 29;
    if (kind <= 4 || kind == 23)
        stmt_setup(st, sizeof st, in, kind);
    else if (kind <= 10 || kind == 21)
        stmt_sim(st, sizeof st, in, kind);
    else if (kind <= 13 || kind == 24)
        stmt_sweep(st, sizeof st, in, kind);
    else if (kind <= 18)
        stmt_string(st, sizeof st, in, kind);
    else if (kind == 26)
        stmt_outside(st, sizeof st, in);
    else
        stmt_misc(st, sizeof st, in, kind);
    add(out, len, "pcall(function() ");
    add(out, len, st);
    add(out, len, " end)\n");
}

/* ---- running ------------------------------------------------------------------------ */

/* Nothing of the file outside may reach a script. */
/* Set when the program's own text holds the word (a raw input may): then
 * its messages may quote it without reading anything outside. */
static bool program_says_secret;

static void check_secret(const char *text)
{
    if (!program_says_secret && strstr(text, "SECRET")) {
        fprintf(stderr, "fuzz_lua: a file outside the sandbox was read: %.300s\n", text);
        abort();
    }
}

static void sink_text(void *ctx, const char *text)
{
    (void)ctx;
    check_secret(text);
}

static void sink_stage(void *ctx, int stage)
{
    (void)ctx, (void)stage;
}

static void sink_setup(void *ctx, const struct setup *s)
{
    (void)ctx, (void)s;
}

static void check_message(const char *err)
{
    check_secret(err);
    if (!err[0]) {
        fprintf(stderr, "fuzz_lua: a failure without a message\n");
        abort();
    }
}

/* Simulated time one animated slice may cover in played mode, in ticks of
 * the sim (the view runs long stretches in bounded pieces too). */
#define PLAY_SLICE_TICKS 20000.0

/* Drives a played script as the play view does: each run animated in two
 * short slices. */
static void play_program(struct luahost *h)
{
    char err[4096] = "";
    for (int i = 0; i < PLAY_RESUMES_MAX; i++) {
        struct luahost_request req;
        enum luahost_status st = luahost_resume(h, &req, err, sizeof err);
        if (st == LUAHOST_DONE)
            break;
        if (st == LUAHOST_ERROR) {
            check_message(err);
            break;
        }
        if (st == LUAHOST_RUN && req.sim) {
            double d = req.duration_s, most = PLAY_SLICE_TICKS * sim_tick_s(req.sim);
            d = d < most ? d : most;
            if (sim_run(req.sim, d / 2, err, sizeof err))
                (void)sim_run(req.sim, d / 2, err, sizeof err);
            struct sim_counters c;
            sim_counters(req.sim, &c); /* the view reads the sim it holds */
        }
    }
}

/* Runs one program in a fresh host. A raw program (from_file) is loaded
 * from a file the way `mlviz run` loads one, its parameters found by the
 * describe pass; a program of the grammar is loaded from memory (no file,
 * no describe pass: it declares no parameters). */
/* The script's directory, made on the first input (make_fixtures). */
static char fixture_dir[64];

static void run_program(const char *program, bool from_file, bool played)
{
    struct luahost_options o;
    memset(&o, 0, sizeof o);
    o.cat = shipped_catalog();
    o.seed = 1;
    o.instruction_budget = INPUT_BUDGET;
    o.memory_cap_bytes = (size_t)16 << 20;
    /* The script's wall-clock limit; the corpus replay in tests/fuzz/run.sh
     * raises it (FUZZ_LUA_TIME_LIMIT_S) so the committed inputs end where
     * they ended when they were found. */
    const char *limit = getenv("FUZZ_LUA_TIME_LIMIT_S");
    o.time_limit_s = limit && atof(limit) > 0 ? atof(limit) : INPUT_TIME_LIMIT_S;
    o.output_dir = "/nonexistent-fuzz-output";
    o.played = played;
    o.hooks = (struct luahost_hooks){.print = sink_text,
                                     .say = sink_text,
                                     .focus = sink_stage,
                                     .mark = sink_text,
                                     .show = sink_setup};
    char err[4096] = "";
    struct luahost *h = luahost_new(&o, err, sizeof err);
    if (!h)
        return; /* a state that cannot start under the cap: nothing to test */
    bool loaded;
    /* The script lives in the fixture directory (see make_fixtures), so
     * that setups there naming files outside are what the sandbox sees. */
    char path[96];
    snprintf(path, sizeof path, "%s/script.lua", fixture_dir);
    if (from_file) {
        FILE *f = fopen(path, "w");
        if (!f) {
            luahost_free(h);
            return;
        }
        fputs(program, f);
        fclose(f);
        loaded = luahost_load(h, path, 0, NULL, err, sizeof err);
        remove(path); /* the directory goes at exit */
    } else {
        loaded = luahost_load_text(h, path, program, strlen(program), NULL, 0, err, sizeof err);
    }
    if (!loaded)
        check_message(err);
    else if (played)
        play_program(h);
    else if (!luahost_run(h, err, sizeof err))
        check_message(err);
    luahost_free(h);
}

/* ---- the script's directory ----------------------------------------------------- */

/* A file below the script's directory (a directory when text is NULL). */
static void put_file(const char *name, const char *text)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
    if (!text) {
        if (mkdir(path, 0755) != 0)
            perror(path);
        return;
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void put_link(const char *name, const char *target)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
    if (symlink(target, path) != 0)
        perror(path);
}

static void remove_fixtures(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s_out'", fixture_dir, fixture_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_lua: could not remove %s\n", fixture_dir);
}

/* DIR (the script's directory, with its mods/) and, beside it, DIR_out
 * holding secret.json and secret.yaml: the files outside. */
static void make_fixtures(void)
{
    snprintf(fixture_dir, sizeof fixture_dir, "/tmp/fuzz_lua_%d", (int)getpid());
    remove_fixtures();
    char out[96], text[256];
    const char *base = strrchr(fixture_dir, '/') + 1;
    snprintf(out, sizeof out, "%s_out", fixture_dir);
    if (mkdir(fixture_dir, 0755) != 0 || mkdir(out, 0755) != 0)
        perror(fixture_dir);
    put_file("mods", NULL);
    snprintf(text, sizeof text, "../%s_out/secret.json", base);
    put_file(text, "{\"architectures\": [\"SECRET\"], \"num_hidden_layers\": \"SECRET\"}\n");
    snprintf(text, sizeof text, "../%s_out/secret.yaml", base);
    put_file(text, "name: SECRET\ncluster: {nodes: SECRET}\n");
    snprintf(text, sizeof text, "model: {hf_config: %s/secret.json}\n", out);
    put_file("abs.yaml", text);
    snprintf(text, sizeof text, "model: {hf_config: ../%s_out/secret.json}\n", base);
    put_file("dotdot.yaml", text);
    snprintf(text, sizeof text, "../%s_out/secret.json", base);
    put_link("link.json", text);
    put_file("link.yaml", "model: {hf_config: link.json}\n");
    snprintf(text, sizeof text, "../%s_out", base);
    put_link("sdir", text);
    put_file("linkdir.yaml", "model: {hf_config: sdir/secret.json}\n");
    put_link("nothing.json", "../no-such-file.json");
    put_file("dangling.yaml", "model: {hf_config: nothing.json}\n");
    snprintf(text, sizeof text, "../%s_out/secret.yaml", base);
    put_link("setuplink.yaml", text);
    snprintf(text, sizeof text, "../../%s_out/secret.json", base);
    put_link("mods/link.lua", text);
    atexit(remove_fixtures);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!fixture_dir[0])
        make_fixtures();
    char *program = malloc(PROGRAM_MAX);
    if (!program)
        return 0;
    program[0] = '\0';
    unsigned mode = data[0] % 4;
    struct input in = {data + 1, size - 1};
    if (mode == 0) { /* raw Lua text */
        size_t n = in.left < PROGRAM_MAX - 1 ? in.left : PROGRAM_MAX - 1;
        memcpy(program, in.p, n);
        program[n] = '\0';
    } else {
        add(program, PROGRAM_MAX,
            "local P = mlviz.params{}\nlocal s = mlviz.setup{}\n"
            "local sim = mlviz.sim(s, {series_capacity = 64})\nlocal rows\n");
        for (int i = 0; i < STATEMENTS_MAX && in.left; i++)
            add_statement(program, PROGRAM_MAX, &in);
        add(program, PROGRAM_MAX, "print('end')\n");
    }
    program_says_secret = strstr(program, "SECRET") != NULL;
    if (getenv("FUZZ_LUA_SHOW")) /* to read what an input runs */
        fprintf(stderr, "-- mode %u\n%s", mode, program);
    run_program(program, mode == 0, mode == 3);
    free(program);
    return 0;
}
