/* safewrite (the one writer) and infile's reading below a directory, in a
 * scratch directory: what exists stays byte for byte unless the mode may
 * replace it, links are never followed, and no temporary file stays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"
#include "safewrite.h"

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_safewrite_%ld", (long)getpid());
    return mkdir(dir, 0755);
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *name)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *get(const char *name)
{
    static char buf[256];
    buf[0] = '\0';
    FILE *f = fopen(at(name), "r");
    if (!f)
        return "(none)";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static const char *link_of(const char *name)
{
    static char buf[512];
    ssize_t n = readlink(at(name), buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* No ".mlviz-tmp-*" left in the directory. */
static void assert_no_temporary(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        assert_null(strstr(e->d_name, ".mlviz-tmp-"));
    closedir(d);
}

static void test_new_refuses_every_taken_name(void **state)
{
    (void)state;
    char err[SAFEWRITE_PATH_LEN + 512];
    put("outside.txt", "outside\n");
    put("mine.yaml", "the user's own\n");
    assert_int_equal(symlink("outside.txt", at("link.yaml")), 0);
    assert_int_equal(symlink("absent.txt", at("dangling.yaml")), 0);
    const char *taken[] = {"mine.yaml", "link.yaml", "dangling.yaml"};
    for (size_t i = 0; i < 3; i++) {
        assert_false(
            safewrite_text(at(taken[i]), "new\n", SAFEWRITE_NEW, NULL, 0, err, sizeof err));
        assert_non_null(strstr(err, "already exists"));
    }
    assert_string_equal(get("mine.yaml"), "the user's own\n");
    assert_string_equal(get("outside.txt"), "outside\n");
    assert_string_equal(link_of("dangling.yaml"), "absent.txt");
    assert_int_equal(access(at("absent.txt"), F_OK), -1);
    /* REPLACE: a regular file yes, a link never. */
    assert_false(safewrite_text(at("link.yaml"), "x", SAFEWRITE_REPLACE, NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "is a symbolic link, not a regular file"));
    assert_false(
        safewrite_text(at("dangling.yaml"), "x", SAFEWRITE_REPLACE, NULL, 0, err, sizeof err));
    assert_int_equal(access(at("absent.txt"), F_OK), -1);
    char written[SAFEWRITE_PATH_LEN];
    assert_true(safewrite_text(at("mine.yaml"), "replaced\n", SAFEWRITE_REPLACE, written,
                               sizeof written, err, sizeof err));
    assert_string_equal(written, at("mine.yaml"));
    assert_string_equal(get("mine.yaml"), "replaced\n");
    assert_string_equal(get("outside.txt"), "outside\n");
    assert_no_temporary();
}

static void test_new_name_goes_past_taken_names(void **state)
{
    (void)state;
    char err[SAFEWRITE_PATH_LEN + 512], written[SAFEWRITE_PATH_LEN];
    put("s.yaml", "first\n");
    assert_int_equal(symlink("s.yaml", at("s-2.yaml")), 0);
    assert_int_equal(symlink("nowhere", at("s-3.yaml")), 0);
    assert_int_equal(mkdir(at("s-4.yaml"), 0755), 0);
    assert_true(safewrite_text(at("s.yaml"), "fifth\n", SAFEWRITE_NEW_NAME, written, sizeof written,
                               err, sizeof err));
    assert_string_equal(written, at("s-5.yaml"));
    assert_string_equal(get("s-5.yaml"), "fifth\n");
    assert_string_equal(get("s.yaml"), "first\n");
    assert_string_equal(link_of("s-3.yaml"), "nowhere");
    /* A name without an extension, and one starting with a dot. */
    put("plain", "x");
    assert_true(safewrite_text(at("plain"), "y", SAFEWRITE_NEW_NAME, written, sizeof written, err,
                               sizeof err));
    assert_string_equal(written, at("plain-2"));
    assert_no_temporary();
}

static void test_begin_at_abort_and_bad_names(void **state)
{
    (void)state;
    char err[SAFEWRITE_PATH_LEN + 512];
    int fd = safewrite_open_dir(dir, false, err, sizeof err);
    assert_true(fd >= 0);
    struct safewrite w;
    assert_true(safewrite_begin_at(&w, fd, "shown", "half.txt", SAFEWRITE_NEW, err, sizeof err));
    fputs("half", w.f);
    safewrite_abort(&w);
    safewrite_abort(&w); /* twice is harmless */
    assert_int_equal(access(at("half.txt"), F_OK), -1);
    assert_true(fcntl(fd, F_GETFD) >= 0); /* the caller's directory stays open */
    const char *bad[] = {"", ".", "..", "a/b"};
    for (size_t i = 0; i < 4; i++) {
        assert_false(safewrite_begin_at(&w, fd, "shown", bad[i], SAFEWRITE_NEW, err, sizeof err));
        assert_non_null(strstr(err, "does not name a file"));
    }
    assert_true(safewrite_begin_at(&w, fd, "shown", "ok.txt", SAFEWRITE_NEW, err, sizeof err));
    fputs("ok", w.f);
    assert_true(safewrite_commit(&w, err, sizeof err));
    assert_string_equal(w.path, "shown/ok.txt");
    close(fd);
    /* A directory that is a link is refused; a missing one is made. */
    assert_int_equal(symlink(".", at("dirlink")), 0);
    assert_int_equal(safewrite_open_dir(at("dirlink"), true, err, sizeof err), -1);
    assert_non_null(strstr(err, "is a symbolic link"));
    fd = safewrite_open_dir(at("made"), true, err, sizeof err);
    assert_true(fd >= 0);
    close(fd);
    assert_no_temporary();
}

static void test_read_below(void **state)
{
    (void)state;
    char err[2048], *text;
    size_t len;
    assert_int_equal(mkdir(at("root"), 0755), 0);
    assert_int_equal(mkdir(at("root/sub"), 0755), 0);
    put("secret.txt", "SECRET\n");
    put("root/sub/in.txt", "inside\n");
    assert_int_equal(symlink("../secret.txt", at("root/out.txt")), 0);
    assert_int_equal(symlink("..", at("root/up")), 0);
    const char *root = at("root");
    assert_true(infile_read_below(root, "sub/in.txt", "in", &text, &len, err, sizeof err));
    assert_string_equal(text, "inside\n");
    free(text);
    assert_true(infile_read_below(root, "./sub//in.txt", "in", &text, &len, err, sizeof err));
    free(text);
    const char *refused[] = {
        "out.txt", "up/secret.txt", "../secret.txt", "sub/../../secret.txt", "/etc/passwd", ""};
    for (size_t i = 0; i < 6; i++) {
        assert_false(infile_read_below(root, refused[i], "x", &text, &len, err, sizeof err));
        assert_null(strstr(err, "SECRET"));
        assert_null(text);
    }
    /* Links are there (to be refused by name); nothing past them is looked at. */
    assert_true(infile_exists_below(root, "out.txt"));
    assert_true(infile_exists_below(root, "up/no-such-file"));
    assert_false(infile_exists_below(root, "sub/no-such-file"));
    assert_false(infile_exists_below(root, "../secret.txt"));
    char joined[INFILE_PATH_LEN];
    assert_true(
        infile_join_below("sub/setup.yaml", "cfg.json", joined, sizeof joined, err, sizeof err));
    assert_string_equal(joined, "sub/cfg.json");
    assert_false(
        infile_join_below("setup.yaml", "../cfg.json", joined, sizeof joined, err, sizeof err));
    assert_string_equal(err, "a path with a '..' part");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_refuses_every_taken_name),
        cmocka_unit_test(test_new_name_goes_past_taken_names),
        cmocka_unit_test(test_begin_at_abort_and_bad_names),
        cmocka_unit_test(test_read_below),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
