/* stagetext: the words the stage views and the tour show, loaded from
 * assets/stages.yaml (strict: unknown keys are errors with file:line:col). */
#ifndef MLVIZ_STAGETEXT_H
#define MLVIZ_STAGETEXT_H

#include <stdbool.h>
#include <stddef.h>

enum { STAGETEXT_STAGES = 5, STAGETEXT_SHORT = 160, STAGETEXT_LONG = 4096 };

struct stage_text {
    char id[32];                   /* "data", "cpus", ... in stage order */
    char title[64];                /* "Data" */
    char tagline[STAGETEXT_SHORT]; /* one line under the title */
    char text[STAGETEXT_LONG];     /* the explanation (paragraphs split by blank lines) */
    char tour[STAGETEXT_LONG];     /* the tour caption for this stage */
};

struct stage_texts {
    struct stage_text stage[STAGETEXT_STAGES];
    char tour_intro[STAGETEXT_LONG];
    char tour_outro[STAGETEXT_LONG];
};

/* Load from a file; on failure err holds "file:line:col: message". */
bool stagetext_load(const char *path, struct stage_texts *out, char *err, size_t err_len);
/* Same from text in memory (tests). */
bool stagetext_load_string(const char *name, const char *text, struct stage_texts *out, char *err,
                           size_t err_len);
/* Fallback words when the asset cannot be read (so the UI still runs). */
void stagetext_fallback(struct stage_texts *out);

#endif
