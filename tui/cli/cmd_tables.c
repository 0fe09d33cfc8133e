/* cmd_tables: the commands that print mlviz's own tables: `mlviz keys`,
 * `mlviz options` and `mlviz completion`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "completion.h"
#include "hfconfig.h"
#include "paths.h"
#include "tui.h"

/* The one switch of a command whose switches pick an output form. */
static int form_option(void *ctx, const char *name, const char *value)
{
    (void)value;
    *(const char **)ctx = name;
    return 0;
}

/* `mlviz options [--man|--md|--synopsis|--commands|--usage|--table]`: the view's
 * options as help, man-page roff or the markdown of docs/; every command's
 * synopsis as roff, usage lines (README) or the whole option table (tests). */
int cmd_options(int argc, char **argv)
{
    const char *form = NULL;
    int n = cli_parse("options", argc, argv, form_option, &form, NULL, 0);
    if (n < 0)
        return cli_parse_exit(n);
    if (!form)
        commands_option_help(stdout, "");
    else if (strcmp(form, "--man") == 0)
        commands_option_man(stdout, "");
    else if (strcmp(form, "--synopsis") == 0)
        commands_man_synopsis(stdout);
    else if (strcmp(form, "--commands") == 0)
        commands_man_commands(stdout);
    else if (strcmp(form, "--usage") == 0)
        commands_usage_all(stdout, 100);
    else if (strcmp(form, "--table") == 0)
        commands_table_dump(stdout);
    else
        commands_option_markdown(stdout, "");
    return EXIT_OK;
}

/* `mlviz keys [--man|--md]`: the key table as help text, man-page roff or
 * markdown (the block in docs/TUI.md). */
int cmd_keys(int argc, char **argv)
{
    const char *form = NULL;
    int n = cli_parse("keys", argc, argv, form_option, &form, NULL, 0);
    if (n < 0)
        return cli_parse_exit(n);
    bool man = form && strcmp(form, "--man") == 0;
    cli_screen()->write_keys(stdout, man ? TUI_KEYS_MAN : form ? TUI_KEYS_MD : TUI_KEYS_TEXT);
    return EXIT_OK;
}

/* `mlviz completion --list NAME`: the names the scripts offer, from their
 * tables (presets and scenarios: paths_list, models: assets/models, themes:
 * the screen's theme table). */
static int list_names(const char *list)
{
    static char names[256][PATHS_NAME_LEN];
    static char models[HFCONFIG_MAX_MODELS][HFCONFIG_NAME_LEN];
    size_t n = 0;
    if (strcmp(list, "presets") == 0 || strcmp(list, "scenarios") == 0) {
        n = paths_list(list[0] == 'p' ? PATHS_PRESET : PATHS_SCENARIO, names, 256);
        for (size_t i = 0; i < n; i++)
            puts(names[i]);
    } else if (strcmp(list, "models") == 0) {
        n = hfconfig_model_names(models, HFCONFIG_MAX_MODELS);
        for (size_t i = 0; i < n; i++)
            puts(models[i]);
    } else {
        const char *const *themes = cli_screen()->theme_names;
        for (size_t i = 0; themes && themes[i]; i++)
            puts(themes[i]);
    }
    return EXIT_OK;
}

static int list_option(void *ctx, const char *name, const char *value)
{
    (void)name;
    *(const char **)ctx = value;
    return 0;
}

/* `mlviz completion bash|zsh|fish`: the script, from the command table. */
int cmd_completion(int argc, char **argv)
{
    const char *shell = NULL, *list = NULL;
    int n = cli_parse("completion", argc, argv, list_option, &list, &shell, 1);
    if (n < 0)
        return cli_parse_exit(n);
    if (list && n == 0)
        return list_names(list);
    if (n != 1 || list || !completion_write(stdout, shell)) {
        char usage[256];
        commands_usage("completion", usage, sizeof usage);
        cli_error("usage: %s", usage);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
