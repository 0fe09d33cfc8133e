/* mlviz lesson (tui/cli/cmd_lesson.c): a lesson's text reaches its script
 * as values, never as source. A property test: 10,000 random titles and
 * captions, made of what breaks quoting (]], ]=, quotes, backslashes,
 * newlines, %, long strings, UTF-8, bidi and other format characters, tab
 * and newline, the control characters the YAML loader accepts), written
 * to lesson files as YAML double-quoted strings, all load and reach say()
 * byte for byte unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../catalog_fixture.h"
#include "cli.h"
#include "luahost.h"

enum { LESSONS = 50, STEPS = 199, TEXT_MAX = 2000, SAID_MAX = STEPS + 1 };

/* What the script said, in order. */
struct said {
    char *text[SAID_MAX];
    int n;
    int shown;
};

static void hook_say(void *ctx, const char *text)
{
    struct said *s = ctx;
    if (s->n < SAID_MAX)
        s->text[s->n] = strdup(text);
    s->n++;
}

static void hook_show(void *ctx, const struct setup *setup)
{
    (void)setup;
    struct said *s = ctx;
    s->shown++;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* Pieces that broke or could break hand-made quoting, and text around them. */
static const char *const pieces[] = {
    "]]",
    "]=",
    "]==]",
    "[[",
    "[=[",
    "\"",
    "'",
    "\\",
    "\\n",
    "\n",
    "\t",
    "%",
    "%s",
    "%d%%",
    "--",
    "--[[",
    "]]..os.exit(1)..[[",
    "\")os.exit(1)--",
    "${HOME}",
    "$(id)",
    "`",
    "#",
    ": ",
    "- ",
    "{",
    "}",
    "&a",
    "*a",
    "!tag",
    "|",
    ">",
    "?",
    "@",
    "\xc3\xa9",
    "\xe4\xb8\xad\xe6\x96\x87",
    "\xf0\x9f\x99\x82",
    "\xe2\x80\xae",
    "\xe2\x80\x8b",
    "\xef\xbb\xbf",
    "\xcc\x81",
    "  ",
    "\\z",
    "\\0",
    "\\x41",
    "\\u{41}",
};

/* A random text of 1..max bytes (UTF-8, no NUL), written to out. */
static void random_text(char *out, size_t max)
{
    size_t want = rnd(8) == 0 ? 1 + rnd((uint32_t)max) : 1 + rnd(60), n = 0;
    while (n < want) {
        char piece[8];
        const char *p = piece;
        if (rnd(3) == 0) {
            piece[0] = (char)(' ' + rnd(95)); /* printable ASCII */
            piece[1] = '\0';
        } else {
            p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
        }
        size_t len = strlen(p);
        if (n + len > max)
            break;
        memcpy(out + n, p, len);
        n += len;
    }
    if (n == 0)
        out[n++] = 'x';
    out[n] = '\0';
}

/* text as a YAML double-quoted scalar. */
static void put_quoted(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else if (*c == '\t')
            fputs("\\t", f);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static const char *const focuses[] = {
    "", "data", "cpus", "accelerators", "interconnect", "infrastructure"};

/* Writes one random lesson to path; its title and captions into texts. */
static void write_lesson(const char *path, char texts[][TEXT_MAX + 1])
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    random_text(texts[0], TEXT_MAX);
    fputs("title: ", f);
    put_quoted(f, texts[0]);
    fputs("\nsteps:\n", f);
    for (int i = 1; i <= STEPS; i++) {
        random_text(texts[i], TEXT_MAX);
        fputs("  - setup: default\n    caption: ", f);
        put_quoted(f, texts[i]);
        const char *focus = focuses[rnd(6)];
        if (focus[0])
            fprintf(f, "\n    focus: %s", focus);
        fputc('\n', f);
    }
    assert_int_equal(fclose(f), 0);
}

/* Plays the lesson to its end; returns the pauses met. */
static int play(struct luahost *h)
{
    int pauses = 0;
    char err[2048] = "";
    for (;;) {
        struct luahost_request req;
        enum luahost_status st = luahost_resume(h, &req, err, sizeof err);
        if (st == LUAHOST_DONE)
            return pauses;
        if (st == LUAHOST_ERROR)
            fail_msg("the lesson failed: %s", err);
        pauses += st == LUAHOST_PAUSE;
    }
}

static void test_random_texts_reach_say_unchanged(void **state)
{
    (void)state;
    static char texts[STEPS + 1][TEXT_MAX + 1];
    const char *tmp = getenv("TMPDIR");
    char path[1100];
    snprintf(path, sizeof path, "%s/mlviz-test-lesson-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (int l = 0; l < LESSONS; l++) {
        write_lesson(path, texts);
        struct said said = {{NULL}, 0, 0};
        struct luahost_hooks hooks = {.ctx = &said, .say = hook_say, .show = hook_show};
        char err[2048];
        int status = -1;
        struct luahost *h = lesson_host(path, cat, &hooks, &status, err, sizeof err);
        if (!h)
            fail_msg("lesson %d refused (status %d): %s", l, status, err);
        assert_int_equal(play(h), STEPS);
        assert_int_equal(said.shown, STEPS);
        assert_int_equal(said.n, STEPS + 1);
        for (int i = 0; i <= STEPS; i++) {
            if (strcmp(said.text[i], texts[i]) != 0)
                fail_msg("lesson %d text %d changed:\n[%s]\n[%s]", l, i, texts[i], said.text[i]);
            free(said.text[i]);
        }
        luahost_free(h);
    }
    unlink(path);
}

/* The lesson's values reach a reload too (r and b restart the script). */
static void test_reload_plays_the_same_text(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char path[1100];
    snprintf(path, sizeof path, "%s/mlviz-test-lesson-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] =
        "title: \"a ]] b ]=\"\nsteps:\n  - setup: default\n    caption: \"c ]==]\"\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    struct said said = {{NULL}, 0, 0};
    struct luahost_hooks hooks = {.ctx = &said, .say = hook_say, .show = hook_show};
    char err[2048];
    int status = -1;
    struct luahost *h = lesson_host(path, cat, &hooks, &status, err, sizeof err);
    unlink(path); /* nothing reads the file after this */
    assert_non_null(h);
    struct luahost *again = luahost_reload(h, 0, NULL, err, sizeof err);
    assert_non_null(again);
    luahost_free(h);
    assert_int_equal(play(again), 1);
    assert_int_equal(said.n, 2);
    assert_string_equal(said.text[0], "a ]] b ]=");
    assert_string_equal(said.text[1], "c ]==]");
    free(said.text[0]);
    free(said.text[1]);
    luahost_free(again);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_texts_reach_say_unchanged),
        cmocka_unit_test(test_reload_plays_the_same_text),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
