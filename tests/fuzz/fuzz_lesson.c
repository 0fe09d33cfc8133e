/* libFuzzer target: lesson files (`mlviz lesson`, tui/cli/cmd_lesson.c).
 *
 * The input is a lesson file's text. It goes through the YAML loader and
 * the lesson's checks (every step's setup loads against the shipped
 * catalog, loaded once); a lesson that passes is played to its end the way
 * the view plays it, with hooks that check every caption reaches say()
 * whole. Inputs must never crash, leak or trip a sanitizer; a refused
 * lesson must carry a message that names the file; no caption may turn
 * into code (the lesson's text reaches its fixed script as values).
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * Run from the repository root (presets and the catalog are found there,
 * or under $MLVIZ_DATA). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "fuzz_shipped_catalog.h"
#include "luahost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lesson has at most 200 steps: a pause each, plus the end. */
enum { RESUMES_MAX = 260 };

struct seen {
    int says, shows;
};

static void hook_say(void *ctx, const char *text)
{
    struct seen *s = ctx;
    if (!text) {
        fputs("fuzz_lesson: say() without text\n", stderr);
        abort();
    }
    s->says++;
}

static void hook_show(void *ctx, const struct setup *setup)
{
    struct seen *s = ctx;
    if (!setup) {
        fputs("fuzz_lesson: show() without a setup\n", stderr);
        abort();
    }
    s->shows++;
}

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_lesson: %s: '%s'\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct catalog *cat = shipped_catalog();
    struct seen seen = {0, 0};
    struct luahost_hooks hooks = {.ctx = &seen, .say = hook_say, .show = hook_show};
    char err[2048] = "";
    int status = -1;
    struct luahost *h = lesson_host_text("fuzz.yaml", (const char *)data, size, cat, &hooks,
                                         &status, err, sizeof err);
    if (!h) {
        if (strncmp(err, "fuzz.yaml", 9) != 0 || strlen(err) < 12 || (status != 1 && status != 2))
            fail("a refused lesson with a bad message or status", err);
        return 0;
    }
    int pauses = 0;
    for (int i = 0; i < RESUMES_MAX; i++) {
        struct luahost_request req;
        enum luahost_status st = luahost_resume(h, &req, err, sizeof err);
        if (st == LUAHOST_DONE)
            break;
        if (st == LUAHOST_ERROR)
            fail("a checked lesson failed while playing", err); /* setups were checked */
        if (st != LUAHOST_PAUSE)
            fail("a lesson asked for something but pauses", "");
        pauses++;
        if (i + 1 == RESUMES_MAX)
            fail("a lesson did not end", "");
    }
    /* Each step shows its setup, says its caption and pauses; the title is
     * said first when there is one. */
    if (seen.shows != pauses || (seen.says != pauses && seen.says != pauses + 1))
        fail("steps, captions and pauses do not match", "");
    luahost_free(h);
    return 0;
}
