/* cli: the headless commands of mlviz and what they share.
 *
 * Exit status: 0 success, 1 runtime or script error, 2 usage or input error.
 * Data goes to stdout, messages to stderr. */
#ifndef MLVIZ_CLI_H
#define MLVIZ_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "catalog.h"
#include "setup.h"

/* EXIT_CANNOT_RUN: `mlviz eval --strict` on a setup that does not fit or cannot be cooled. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 3 };

/* Options every command understands. */
struct cli_common {
    const char *catalog_dir; /* --catalog DIR */
    int format;              /* enum output_format, --format */
};

/* Print "mlviz: " + message to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Load the catalog from the standard places plus --catalog; prints the error. */
struct catalog *cli_load_catalog(const char *extra_dir);

/* A setup argument may be a file path or the name of a shipped preset
 * ("default", "gpt3-175b"). Writes the path to use into buf. */
void cli_setup_path(const char *arg, char *buf, size_t len);
/* Load and resolve a setup named on the command line; prints the error. */
bool cli_load_setup(const char *arg, const struct catalog *cat, struct setup *s,
                    struct resolved *r);

/* What a command line may change in a setup it loads: --set PATH=VALUE
 * (repeatable, applied in order through the field table) and, for eval,
 * --model CONFIG.json|NAME (a Hugging Face config as the model). */
enum { CLI_MAX_SETS = 256 };
struct cli_setup_args {
    const char *sets[CLI_MAX_SETS];
    int n_sets;
    const char *model;
};
/* Apply one "PATH=VALUE"; false with the message naming the argument printed. */
bool cli_apply_set(struct setup *s, const char *arg);
/* cli_load_setup with --set and --model applied before the cross-checks.
 * ARG "-" reads the setup from standard input (64 MiB at most). */
bool cli_load_setup_args(const char *arg, const struct cli_setup_args *a, const struct catalog *cat,
                         struct setup *s, struct resolved *r);

/* Add one --set value ("PATH=VALUE"): 1, or -1 with the message printed. */
int cli_set_add(struct cli_setup_args *a, const char *v);
/* A common option by name ("--catalog", "--format") with its value: 1 when
 * applied, 0 when `name` is not one, -1 on a bad value (printed). */
int cli_common_apply(struct cli_common *c, const char *name, const char *value);

/* Parsing by the command table (tui/cli/parse.c walks the command's row of
 * tui/cli/commands.c). cli_parse hands every option the command's table
 * lists to `on_option` with its value ("--x V" or "--x=V", checked by the
 * table's type, range or choices: a bad, missing or empty value is a usage
 * error printed here; NULL for a switch) under the option's own name (an
 * alias given or not). on_option returns 0, or -1 after printing an error.
 * -h/--help prints the usage line and the options' help (cli_print_help).
 * Other words are positionals ("-" is one: standard input; after "--"
 * every word is), at most max_pos. Returns how many positionals, or
 * CLI_PARSE_HELP or CLI_PARSE_ERROR; cli_parse_exit turns those into the
 * exit status. */
enum { CLI_PARSE_ERROR = -1, CLI_PARSE_HELP = -2 };
typedef int (*cli_option_fn)(void *ctx, const char *name, const char *value);
int cli_parse(const char *command, int argc, char **argv, cli_option_fn on_option, void *ctx,
              const char **pos, int max_pos);
int cli_parse_exit(int parsed);
/* The same with every other word handed to on_word (`ended`: after "--"),
 * which returns 0 or -1 after printing an error. For a SCRIPT_WORDS
 * command (run, play) words that look like options but are none of the
 * table's and the "--" itself go to on_word too. Returns 0, CLI_PARSE_HELP
 * or CLI_PARSE_ERROR. */
typedef int (*cli_word_fn)(void *ctx, const char *word, bool ended);
int cli_parse_words(const char *command, int argc, char **argv, cli_option_fn on_option,
                    cli_word_fn on_word, void *ctx);
/* An on_option for commands whose only options are the common ones; ctx
 * is a struct cli_common. */
int cli_common_only(void *ctx, const char *name, const char *value);
/* What a handler returns for a table option it has no case for: an
 * internal error that tests/cli/optable.sh catches. */
int cli_unhandled(const char *name);
/* "usage: mlviz NAME ...", the command's paragraph and the options with
 * help, from the table. */
void cli_print_help(const char *command);

/* Room for a catalog id or name with every byte escaped. */
enum { PRINTABLE_MAX = 4 * FIELD_STR_LEN + 1 };

/* tui/cli/cli_files.c: the files commands write, through safewrite.h:
 * nothing that exists is replaced unless the user gave --force (`force`),
 * and then only a regular file; never through a link at the name; each
 * file written is named on stderr ("mlviz: wrote PATH"). Messages start
 * with `what` (the option). */
/* Opens the directory of `path` as the user named it; *name is the last
 * part, dir_shown the directory ("" for the current one). -1 with the
 * message printed. */
int cli_open_parent(const char *path, const char *what, char *dir_shown, size_t len,
                    const char **name);
/* Whether `name` in dir_fd may be written (free, or with force a regular
 * file); false with the message printed. Commands check before long work. */
bool cli_may_write(int dir_fd, const char *shown, const char *name, bool force, const char *what);
/* Writes text as `name` in dir_fd (shown as dir_shown/name). */
bool cli_write_file(int dir_fd, const char *dir_shown, const char *name, const char *text,
                    bool force);

/* A helper program run with one deadline (tui/cli/child.c): its own
 * process group, standard output collected (at most max_bytes), stdin and
 * stderr on /dev/null. Reading and reaping share timeout_ms; at the
 * deadline, on too much output or on SIGINT/SIGTERM/SIGHUP the whole group
 * is killed (SIGKILL) and reaped (a signal is raised again afterwards). */
enum cli_child_end {
    CHILD_DONE,        /* it exited (see exit_status, signal) */
    CHILD_NOT_RUN,     /* it could not be started (exit status 127: not found) */
    CHILD_TIMED_OUT,   /* the deadline passed */
    CHILD_TOO_MUCH,    /* more output than max_bytes */
    CHILD_INTERRUPTED, /* mlviz got a signal (raised again before returning) */
};
struct cli_child {
    char *out; /* malloc'ed, NUL-terminated; the caller frees it */
    size_t len;
    enum cli_child_end end;
    int exit_status; /* -1 unless it exited */
    int signal;      /* the signal that ended it, or 0 */
    bool leftovers;  /* it exited, but processes it started were still there (killed) */
    bool unreaped;   /* it did not end within a second of SIGKILL (stuck in the kernel) */
};
/* True when it ran to the end and exited 0. */
bool cli_run_child(const char *const *argv, int timeout_ms, size_t max_bytes,
                   struct cli_child *res);

int cmd_catalog(int argc, char **argv);    /* tui/cli/cmd_catalog.c */
int cmd_check(int argc, char **argv);      /* tui/cli/cmd_eval.c */
int cmd_eval(int argc, char **argv);       /* tui/cli/cmd_eval.c */
int cmd_infer(int argc, char **argv);      /* tui/cli/cmd_infer.c */
int cmd_plan_infer(int argc, char **argv); /* tui/cli/cmd_plan_infer.c (plan --infer) */
/* The result of `mlviz plan` in a format (tui/cli/plan_output.c). */
struct plan_space;
struct plan_spec;
struct plan_result;
struct plan_why;
void plan_write_result(FILE *out, int format, const struct plan_space *sp,
                       const struct plan_spec *spec, struct plan_result *r, bool pareto,
                       const struct plan_why *why);
/* `mlviz eval --schedule`: the simulated step schedule (tui/cli/cmd_schedule.c);
 * `kind` an enum sched_kind, `format` an enum output_format. */
struct resolved;
struct model_report;
int eval_write_schedule(const struct setup *s, const struct resolved *r,
                        const struct model_report *o, int kind, int format);
int cmd_collective(int argc, char **argv); /* tui/cli/cmd_collective.c */
int cmd_fields(int argc, char **argv);     /* tui/cli/cmd_fields.c */
int cmd_sim(int argc, char **argv);        /* tui/cli/cmd_sim.c */
int cmd_plan(int argc, char **argv);       /* tui/cli/cmd_plan.c */
int cmd_run(int argc, char **argv);        /* tui/cli/cmd_lua.c */
int cmd_play(int argc, char **argv);       /* tui/cli/cmd_lua.c */
int cmd_lesson(int argc, char **argv);     /* tui/cli/cmd_lesson.c */
int cmd_scenarios(int argc, char **argv);  /* tui/cli/cmd_lua.c */
int cmd_probe(int argc, char **argv);      /* tui/cli/cmd_probe.c */
int cmd_keys(int argc, char **argv);       /* tui/cli/cmd_tables.c */
int cmd_options(int argc, char **argv);    /* tui/cli/cmd_tables.c */
int cmd_completion(int argc, char **argv); /* tui/cli/cmd_tables.c */
int cmd_view(int argc, char **argv);       /* tui/cli/cmd_view.c: `mlviz`, the interactive view */

struct luahost;
/* tui/cli/cmd_view.c: play a loaded scenario in the interactive view (mlviz
 * play, mlviz lesson). `argc/argv` are the view's options left after the
 * Lua options were taken. The presenter may restart the scenario with
 * other parameters, which replaces *host (the caller frees whatever *host
 * is at the end). Returns the exit status. */
int view_play(struct luahost **host, const char *script_path, int argc, char **argv);

/* tui/cli/cmd_lesson.c: checks the lesson FILE (every setup loads; messages
 * read "file:line:col: ...") and returns a played, trusted host (with these
 * hooks) that has the lesson's fixed script loaded and the lesson's text
 * as its values. NULL with the message in err and the exit status in
 * *status (2 for a faulty lesson). */
struct luahost_hooks;
struct luahost *lesson_host(const char *file, const struct catalog *cat,
                            const struct luahost_hooks *hooks, int *status, char *err,
                            size_t err_len);
/* The same for a lesson held in memory (`name` stands for its file). */
struct luahost *lesson_host_text(const char *name, const char *text, size_t len,
                                 const struct catalog *cat, const struct luahost_hooks *hooks,
                                 int *status, char *err, size_t err_len);

/* The screen, as main() registers it (tui_screen from tui/tui.h). Without
 * one (the CLI's unit tests link no screen), the view commands say so and
 * fail with EXIT_RUNTIME. */
struct tui_entry;
void cli_use_screen(const struct tui_entry *screen);
const struct tui_entry *cli_screen(void);

#endif
