/* cmd_tables: the commands that print mlviz's own tables: `mlviz keys`,
 * `mlviz options` and `mlviz completion`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "completion.h"
#include "options.h"
#include "tui.h"

/* The one switch of a command whose switches pick an output form. */
static int form_option(void *ctx, const char *name, const char *value)
{
    (void)value;
    *(const char **)ctx = name;
    return 0;
}

/* `mlviz options [--man|--md|--synopsis]`: the view's option table as help,
 * man-page roff or the markdown of docs/; the commands' synopsis as roff. */
int cmd_options(int argc, char **argv)
{
    const char *form = NULL;
    int n = cli_parse("options", argc, argv, form_option, &form, NULL, 0);
    if (n < 0)
        return cli_parse_exit(n);
    if (form && strcmp(form, "--man") == 0)
        options_man(stdout);
    else if (form && strcmp(form, "--synopsis") == 0)
        commands_man_synopsis(stdout);
    else if (form)
        options_markdown(stdout);
    else
        options_help(stdout, OPT_VIEW | OPT_PLAY);
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

/* `mlviz completion bash|zsh|fish`: the script, from the command table. */
int cmd_completion(int argc, char **argv)
{
    const char *shell = NULL;
    int n = cli_parse("completion", argc, argv, form_option, NULL, &shell, 1);
    if (n < 0)
        return cli_parse_exit(n);
    if (n != 1 || !completion_write(stdout, shell)) {
        char usage[256];
        commands_usage("completion", usage, sizeof usage);
        cli_error("usage: %s", usage);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
