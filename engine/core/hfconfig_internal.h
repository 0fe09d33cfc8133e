/* hfconfig_internal: what hfconfig.c and hfconfig_arch.c share: the table of
 * architectures, the strict JSON check, message escaping and warnings. */
#ifndef MLVIZ_HFCONFIG_INTERNAL_H
#define MLVIZ_HFCONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "setup.h"
#include "yamldoc.h"

/* What an architecture implies beyond its keys. */
enum {
    HF_ARCH_QKV_BIAS = 1u << 0,      /* query, key and value projections carry biases */
    HF_ARCH_SHARED_EXPERT = 1u << 1, /* one always-active expert of the routed width (Llama 4) */
    HF_ARCH_EXPERT_BIAS = 1u << 2,   /* the experts' projections carry biases (gpt-oss) */
};

struct hf_arch {
    const char *architecture; /* the `architectures` value */
    const char *model_type;   /* the `model_type` value */
    unsigned flags;
};

/* The supported architecture named by a config, by `architectures[0]` or,
 * without it, `model_type`; NULL with the reason in why (refused families:
 * encoder-decoder, state-space and hybrid; anything else unknown). With
 * `force` an unknown (but not a refused) architecture yields a plain
 * decoder entry. */
const struct hf_arch *hf_arch_find(const struct ynode *root, const struct ynode *shape, bool force,
                                   char *why, size_t why_len);
/* The i-th supported architecture, NULL past the end. */
const struct hf_arch *hf_arch_at(size_t i);

/* JSON as JSON has it: every key in double quotes, every bare value a JSON
 * number, true, false or null. False with "file:line:col: message". */
bool hf_strict_json(const struct ynode *node, const char *file, char *err, size_t err_len);
/* The text is JSON (RFC 8259): false with "file:line:col: JSON syntax
 * error: ..." (what was found escaped). A leading byte-order mark is
 * allowed. */
bool hf_json_syntax(const char *file, const char *text, size_t len, char *err, size_t err_len);
/* A JSON number ("-1.5e3"): digits as JSON writes them, nothing else. */
bool hf_json_number(const char *text);

/* `in` (at most max bytes of it) quoted for a message: control, C1,
 * bidirectional and other format characters, and bytes that are not UTF-8,
 * are written as \xNN or \u{XXXX}; "..." marks a cut. */
void hf_escape(char *out, size_t out_len, const char *in, size_t max);

/* Warnings gathered while one config is read, sent once it is accepted. */
enum { HF_MAX_NOTES = 12, HF_NOTE_LEN = 320 };
struct hf_notes {
    char text[HF_MAX_NOTES][HF_NOTE_LEN];
    int count;
};
void hf_note(struct hf_notes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hf_notes_send(const struct hf_notes *notes, const char *file);

/* What the architecture implies beyond the key table (Llama 4's shared
 * expert, which layers have experts) and a warning for every key read but
 * not modelled, with its effect. */
bool hf_arch_shapes(struct setup *s, const struct ynode *root, const struct ynode *map,
                    const struct hf_arch *arch, const char *file, struct hf_notes *notes, char *err,
                    size_t err_len);

#endif
