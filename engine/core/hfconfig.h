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

/* The names of the shipped model configs (assets/models/NAME.json),
 * sorted; at most max. */
enum { HFCONFIG_MAX_MODELS = 64, HFCONFIG_NAME_LEN = 72 };
size_t hfconfig_model_names(char (*names)[HFCONFIG_NAME_LEN], size_t max);

/* A config's name for titles: its "_title" (the shipped configs have one:
 * "Llama 3 70B"), else its architecture or model_type, escaped; "" when
 * the file has none of them. */
void hfconfig_title(const char *path, char *buf, size_t len);

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

/* Process-wide settings of the reader. With force_architecture (the
 * command line's --force-architecture) a config of an architecture mlviz
 * does not know is read as a decoder-only transformer instead of refused
 * (encoder-decoder and state-space families stay refused). Warnings (keys
 * read but not modelled, with their effect: "sliding_window 4096 not
 * modelled: ...") go to the sink, one line each, once a config is accepted;
 * without a sink they are dropped. */
void hfconfig_set_force_architecture(bool force);
bool hfconfig_force_architecture(void);
void hfconfig_set_warning_sink(void (*sink)(const char *message));
/* The supported `architectures` values (docs/HFCONFIG.md lists them). */
size_t hfconfig_architecture_count(void);
const char *hfconfig_architecture_name(size_t i);

#endif
