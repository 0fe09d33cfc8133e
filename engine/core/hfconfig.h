/* hfconfig: a model's shape from a Hugging Face config.json.
 *
 * A setup's `model:` may say `hf_config: PATH` (a config.json, read through
 * the YAML reader since JSON is YAML) or `name: ID` (a config shipped in
 * assets/models/ID.json). One table maps the Hugging Face keys (and their
 * GPT-2, Mixtral, Qwen-MoE and DeepSeek spellings) onto setup field paths;
 * values go through the setup's field table with its range checks. Fields
 * written beside `hf_config` in the setup override the config. */
#ifndef MLVIZ_HFCONFIG_H
#define MLVIZ_HFCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "setup.h"
#include "yamldoc.h"

/* Apply the model shape of a config.json to s (model.kind becomes
 * transformer). On failure s is unchanged and err holds "PATH:line:col:
 * message" or, for a config without a shape mlviz can read, "PATH: ...
 * missing KEY (or ...), ...". */
bool hfconfig_apply_file(struct setup *s, const char *path, char *err, size_t err_len);

/* The same for config text held in memory; `name` is used in messages. */
bool hfconfig_apply_text(struct setup *s, const char *name, const char *text, size_t len, char *err,
                         size_t err_len);

/* The path of a shipped model config: DATA/assets/models/NAME.json. False
 * with a message (listing the shipped names, "did you mean") when NAME is
 * not a plain name or no such file is shipped. */
bool hfconfig_named_path(const char *name, char *buf, size_t len, char *err, size_t err_len);

/* What the setup loader binds after hfconfig_expand: a shallow copy of the
 * document's root whose model mapping lacks `hf_config` and `name`. */
struct hfconfig_view;
const struct ynode *hfconfig_view_root(const struct hfconfig_view *view);
void hfconfig_view_free(struct hfconfig_view *view);

/* A setup read below a directory (setup_load_below): its hf_config is read
 * below the same root, relative to the setup's own directory. */
struct hfconfig_below {
    const char *root;  /* the directory nothing is read outside of */
    const char *rel;   /* the setup's path below root */
    const char *shown; /* the setup as messages name it */
};

/* The setup loader's hook, called before the fields are bound: when root's
 * model mapping holds `hf_config` (a path, relative ones against the
 * directory of `file`) or `name`, applies that config to s and sets *view
 * to the document without those keys; otherwise *view is NULL. With
 * `below` (else NULL), hf_config must be a relative path without "..",
 * reached through no symbolic link (infile_read_below). Errors are
 * "file:line:col: message" at the key. */
bool hfconfig_expand(struct setup *s, const struct ynode *root, const char *file,
                     const struct hfconfig_below *below, struct hfconfig_view **view, char *err,
                     size_t err_len);

#endif
