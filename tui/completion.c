/* completion: bash, zsh and fish scripts from the command and option tables. */
#include "completion.h"

#include <string.h>

#include "options.h"

/* What follows an option: nothing, a word from a list, a file, a
 * directory, a setup field path (PATH=VALUE). */
enum arg_kind { ARG_NONE, ARG_WORDS, ARG_FILE, ARG_DIR, ARG_FIELD, ARG_ANY };

struct cmd_option {
    const char *name;
    enum arg_kind arg;
    const char *words; /* ARG_WORDS: the choices, space-separated */
};

/* The options of the headless commands, as their --help lists them. */
struct cmd_options {
    const char *command;
    const char *positional; /* words for the first argument, or NULL (files) */
    struct cmd_option options[16];
};

#define FORMAT {"--format", ARG_WORDS, "text csv json"}
#define CATALOG {"--catalog", ARG_DIR, NULL}
#define SET {"--set", ARG_FIELD, NULL}

static const struct cmd_options command_options[] = {
    {"catalog", "accelerators cpus storage links cooling software", {FORMAT, CATALOG}},
    {"check", NULL, {SET, FORMAT, CATALOG}},
    {"eval", NULL, {{"--model", ARG_FILE, NULL}, SET, {"--strict", ARG_NONE, NULL}, FORMAT, CATALOG}},
    {"collective", "",
     {{"--op", ARG_WORDS, "all-reduce all-gather reduce-scatter broadcast"},
      {"--size", ARG_ANY, NULL},
      {"--devices", ARG_ANY, NULL},
      {"--setup", ARG_FILE, NULL},
      {"--link", ARG_ANY, NULL},
      FORMAT}},
    {"sim", NULL,
     {SET, {"--duration", ARG_ANY, NULL}, {"--seed", ARG_ANY, NULL}, {"--events", ARG_FILE, NULL},
      {"--series", ARG_NONE, NULL}, {"--sample", ARG_ANY, NULL}, {"--tick", ARG_ANY, NULL},
      {"--no-jitter", ARG_NONE, NULL}, {"--no-failures", ARG_NONE, NULL},
      {"--no-thermal", ARG_NONE, NULL}, FORMAT, CATALOG}},
    {"run", NULL,
     {{"--trust", ARG_NONE, NULL}, {"--seed", ARG_ANY, NULL}, {"--budget", ARG_ANY, NULL},
      {"--memory", ARG_ANY, NULL}, {"--out", ARG_DIR, NULL}, CATALOG}},
    {"play", NULL,
     {{"--trust", ARG_NONE, NULL}, {"--seed", ARG_ANY, NULL}, {"--budget", ARG_ANY, NULL},
      {"--memory", ARG_ANY, NULL}, {"--out", ARG_DIR, NULL}}},
    {"scenarios", "", {FORMAT}},
    {"fields", "", {FORMAT}},
    {"keys", "", {{"--man", ARG_NONE, NULL}}},
    {"options", "", {{"--man", ARG_NONE, NULL}}},
    {"probe", "", {{"--write", ARG_FILE, NULL}, {"--measure", ARG_DIR, NULL}, CATALOG}},
    {"completion", "bash zsh fish", {{NULL, ARG_NONE, NULL}}},
};
enum { N_COMMAND_OPTIONS = sizeof command_options / sizeof command_options[0] };

static const struct cmd_options *options_of(const char *command)
{
    for (size_t i = 0; i < N_COMMAND_OPTIONS; i++)
        if (strcmp(command_options[i].command, command) == 0)
            return &command_options[i];
    return NULL;
}

/* One option of the view's table as a cmd_option. */
static struct cmd_option view_option(const struct options_entry *o)
{
    struct cmd_option c = {o->name, o->arg ? ARG_ANY : ARG_NONE, NULL};
    if (o->id == OPT_SETUP)
        c.arg = ARG_FILE;
    else if (o->id == OPT_CATALOG)
        c.arg = ARG_DIR;
    else if (o->id == OPT_SET)
        c.arg = ARG_FIELD;
    else if (o->id == OPT_THEME)
        c.arg = ARG_WORDS, c.words = "default basic contrast mono";
    return c;
}

/* Calls fn for every option of a command: its own, and for the view
 * (command NULL) and play the view's table. */
typedef void (*option_fn)(FILE *out, const char *command, const struct cmd_option *o);

static void each_option(FILE *out, const char *command, option_fn fn)
{
    const struct cmd_options *c = command ? options_of(command) : NULL;
    for (size_t i = 0; c && i < 16 && c->options[i].name; i++)
        fn(out, command, &c->options[i]);
    unsigned applies = !command ? OPT_VIEW : strcmp(command, "play") == 0 ? OPT_PLAY : 0;
    for (size_t i = 0; applies; i++) {
        const struct options_entry *o = options_at(i);
        if (!o)
            break;
        if (!(o->applies & applies))
            continue;
        struct cmd_option v = view_option(o);
        fn(out, command, &v);
        if (o->alias) {
            v.name = o->alias;
            fn(out, command, &v);
        }
    }
}

/* ---- bash ---------------------------------------------------------------- */

static void bash_word(FILE *out, const char *command, const struct cmd_option *o)
{
    (void)command;
    fprintf(out, " %s", o->name);
}

static void bash_arg(FILE *out, const char *command, const struct cmd_option *o)
{
    (void)command;
    switch (o->arg) {
    case ARG_WORDS:
        fprintf(out, "        %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
                o->name, o->words);
        break;
    case ARG_FILE:
        fprintf(out, "        %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", o->name);
        break;
    case ARG_DIR:
        fprintf(out, "        %s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", o->name);
        break;
    case ARG_FIELD:
        fprintf(out,
                "        %s) compopt -o nospace 2>/dev/null\n"
                "            COMPREPLY=($(compgen -W \"$(mlviz fields --format csv 2>/dev/null |"
                " sed -n '2,$s/,.*/=/p')\" -- \"$cur\")); return ;;\n",
                o->name);
        break;
    case ARG_ANY:
        fprintf(out, "        %s) return ;;\n", o->name);
        break;
    case ARG_NONE:
        break;
    }
}

static void write_bash(FILE *out, const char *const *commands, size_t n)
{
    fputs("# bash completion for mlviz (generated by 'mlviz completion bash')\n"
          "_mlviz() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmd=${COMP_WORDS[1]} opts\n"
          "    case $cmd in\n",
          out);
    for (size_t i = 0; i < n; i++) {
        const struct cmd_options *c = options_of(commands[i]);
        fprintf(out, "    %s)\n        case $prev in\n", commands[i]);
        each_option(out, commands[i], bash_arg);
        fputs("        esac\n        opts=\"", out);
        each_option(out, commands[i], bash_word);
        fputs("\"\n", out);
        if (c && c->positional && c->positional[0])
            fprintf(out, "        [ $COMP_CWORD -eq 2 ] && opts=\"$opts %s\"\n", c->positional);
        fputs("        ;;\n", out);
    }
    fputs("    *)\n        case $prev in\n", out);
    each_option(out, NULL, bash_arg);
    fputs("        esac\n        opts=\"", out);
    each_option(out, NULL, bash_word);
    fputs("\"\n        [ $COMP_CWORD -eq 1 ] && opts=\"$opts", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, " %s", commands[i]);
    fputs(" --help --version\"\n        ;;\n    esac\n"
          "    if [[ $cur == -* ]] || { [ $COMP_CWORD -eq 1 ] && [ -n \"$opts\" ]; }; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -F _mlviz mlviz\n",
          out);
}

/* ---- zsh ------------------------------------------------------------------ */

static void zsh_spec(FILE *out, const char *command, const struct cmd_option *o)
{
    (void)command;
    switch (o->arg) {
    case ARG_NONE:
        fprintf(out, "      '%s' \\\n", o->name);
        break;
    case ARG_WORDS:
        fprintf(out, "      '%s:value:(%s)' \\\n", o->name, o->words);
        break;
    case ARG_FILE:
        fprintf(out, "      '%s:file:_files' \\\n", o->name);
        break;
    case ARG_DIR:
        fprintf(out, "      '%s:directory:_files -/' \\\n", o->name);
        break;
    case ARG_FIELD:
        fprintf(out, "      '*%s:field:_mlviz_fields' \\\n", o->name);
        break;
    case ARG_ANY:
        fprintf(out, "      '%s:value:' \\\n", o->name);
        break;
    }
}

static void write_zsh(FILE *out, const char *const *commands, size_t n)
{
    fputs("#compdef mlviz\n# zsh completion for mlviz (generated by 'mlviz completion zsh')\n"
          "_mlviz_fields() {\n"
          "    local -a f\n"
          "    f=(${(f)\"$(mlviz fields --format csv 2>/dev/null | sed -n '2,$s/,.*/=/p')\"})\n"
          "    compadd -S '' -a f\n"
          "}\n"
          "_mlviz() {\n"
          "    if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then\n"
          "        local -a cmds\n        cmds=(",
          out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? " " : "", commands[i]);
    fputs(")\n        compadd -a cmds\n        _files\n        return\n    fi\n"
          "    case $words[2] in\n",
          out);
    for (size_t i = 0; i < n; i++) {
        const struct cmd_options *c = options_of(commands[i]);
        fprintf(out, "    %s)\n        shift words; (( CURRENT-- ))\n        _arguments \\\n",
                commands[i]);
        each_option(out, commands[i], zsh_spec);
        if (c && c->positional && c->positional[0])
            fprintf(out, "      '1:argument:(%s)' \\\n", c->positional);
        else if (!c || !c->positional)
            fputs("      '1:setup or script:_files' \\\n", out);
        fputs("        ;;\n", out);
    }
    fputs("    *)\n        _arguments \\\n", out);
    each_option(out, NULL, zsh_spec);
    fputs("        ;;\n    esac\n}\n_mlviz \"$@\"\n", out);
}

/* ---- fish ----------------------------------------------------------------- */

static void fish_option(FILE *out, const char *command, const struct cmd_option *o)
{
    const char *name = o->name + (o->name[1] == '-' ? 2 : 1);
    fprintf(out, "complete -c mlviz -n ");
    if (command)
        fprintf(out, "'__fish_seen_subcommand_from %s'", command);
    else
        fputs("'__fish_use_subcommand'", out);
    fprintf(out, " %s %s", o->name[1] == '-' ? "-l" : "-s", name);
    switch (o->arg) {
    case ARG_NONE:
        break;
    case ARG_WORDS:
        fprintf(out, " -x -a '%s'", o->words);
        break;
    case ARG_FILE:
        fputs(" -r -F", out);
        break;
    case ARG_DIR:
        fputs(" -x -a '(__fish_complete_directories)'", out);
        break;
    case ARG_FIELD:
        fputs(" -x -a \"(mlviz fields --format csv 2>/dev/null | sed -n '2,\\$s/,.*/=/p')\"", out);
        break;
    case ARG_ANY:
        fputs(" -x", out);
        break;
    }
    fputc('\n', out);
}

static void write_fish(FILE *out, const char *const *commands, size_t n)
{
    fputs("# fish completion for mlviz (generated by 'mlviz completion fish')\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct cmd_options *c = options_of(commands[i]);
        fprintf(out, "complete -c mlviz -f -n '__fish_use_subcommand' -a %s\n", commands[i]);
        each_option(out, commands[i], fish_option);
        if (c && c->positional && c->positional[0])
            fprintf(out,
                    "complete -c mlviz -f -n '__fish_seen_subcommand_from %s' -a '%s'\n",
                    commands[i], c->positional);
    }
    each_option(out, NULL, fish_option);
}

bool completion_write(FILE *out, const char *shell, const char *const *commands,
                      size_t n_commands)
{
    if (strcmp(shell, "bash") == 0)
        write_bash(out, commands, n_commands);
    else if (strcmp(shell, "zsh") == 0)
        write_zsh(out, commands, n_commands);
    else if (strcmp(shell, "fish") == 0)
        write_fish(out, commands, n_commands);
    else
        return false;
    return true;
}
