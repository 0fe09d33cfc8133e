/* test_lua_output: file names, the output directory, atomic writes and the
 * per-run byte limit of files written by Lua scripts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lua_output.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_lua_output_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

static bool name_ok(const char *name, const char *ext, char *err, size_t err_len)
{
    return lua_output_check_name(name, strlen(name), ext, err, err_len);
}

static void test_names(void **state)
{
    (void)state;
    char err[512];
    assert_true(name_ok("sweep.csv", ".csv", err, sizeof err));
    assert_true(name_ok("A-b_c.1.json", ".json", err, sizeof err));
    assert_false(name_ok("../x.csv", ".csv", err, sizeof err));
    assert_string_equal(err, "\"../x.csv\" is not a plain file name (letters, digits, '.', "
                             "'_', '-'; it is written into the output directory, chosen with "
                             "--out)");
    assert_false(name_ok("sub/x.csv", ".csv", err, sizeof err));
    assert_false(name_ok("/tmp/x.csv", ".csv", err, sizeof err));
    assert_false(name_ok("x y.csv", ".csv", err, sizeof err));
    assert_false(name_ok(".x.csv", ".csv", err, sizeof err));
    assert_non_null(strstr(err, "starts with a dot"));
    assert_false(name_ok("x.csv", ".json", err, sizeof err));
    assert_string_equal(err, "\"x.csv\" must end in .json");
    assert_false(name_ok(".csv", ".csv", err, sizeof err));
    assert_false(name_ok("", ".csv", err, sizeof err));
    assert_false(lua_output_check_name("a\0b.csv", 7, ".csv", err, sizeof err));
    assert_non_null(strstr(err, "\"a\\x00b.csv\""));
    char long_name[200];
    memset(long_name, 'a', sizeof long_name);
    strcpy(long_name + LUA_OUTPUT_NAME_MAX - 4, ".csv"); /* exactly the limit */
    assert_true(name_ok(long_name, ".csv", err, sizeof err));
    strcpy(long_name + LUA_OUTPUT_NAME_MAX - 3, ".csv");
    assert_false(name_ok(long_name, ".csv", err, sizeof err));
    assert_non_null(strstr(err, "is longer than 128 bytes"));
}

static void read_file(const char *name, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static int count_entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

static void test_atomic_replace_and_abort(void **state)
{
    (void)state;
    char err[512], text[64];
    struct lua_output o;
    struct lua_output_file f;
    lua_output_init(&o, dir, false);
    assert_true(lua_output_begin(&o, "a.csv", 5, ".csv", &f, err, sizeof err));
    fputs("first\n", f.w.f);
    assert_true(lua_output_commit(&f, err, sizeof err));
    char want[128];
    snprintf(want, sizeof want, "%s/a.csv", dir);
    assert_string_equal(f.w.path, want);
    /* A write given up half way leaves the old text and no temporary file. */
    assert_true(lua_output_begin(&o, "a.csv", 5, ".csv", &f, err, sizeof err));
    fputs("sec", f.w.f);
    lua_output_abort(&f);
    read_file("a.csv", text, sizeof text);
    assert_string_equal(text, "first\n");
    assert_int_equal(count_entries(), 1);
    /* A symbolic link at the name is neither followed nor replaced: the
     * file takes the next free name, which later writes replace. */
    char link[512], path[512];
    snprintf(link, sizeof link, "%s/l.csv", dir);
    assert_int_equal(symlink("a.csv", link), 0);
    for (int round = 0; round < 2; round++) {
        assert_true(lua_output_begin(&o, "l.csv", 5, ".csv", &f, err, sizeof err));
        fputs(round ? "two\n" : "one\n", f.w.f);
        assert_true(lua_output_commit(&f, err, sizeof err));
        snprintf(want, sizeof want, "%s/l-2.csv", dir);
        assert_string_equal(f.w.path, want);
    }
    read_file("l-2.csv", text, sizeof text);
    assert_string_equal(text, "two\n");
    read_file("a.csv", text, sizeof text);
    assert_string_equal(text, "first\n");
    char asked[1200], written[1200];
    assert_int_equal(lua_output_renamed(&o, 0, asked, sizeof asked, written, sizeof written), 1);
    snprintf(want, sizeof want, "%s/l.csv", dir);
    assert_string_equal(asked, want);
    snprintf(want, sizeof want, "%s/l-2.csv", dir);
    assert_string_equal(written, want);
    lua_output_close(&o);
    /* A later run does not own a.csv: it writes a-2.csv beside it. */
    lua_output_init(&o, dir, false);
    assert_true(lua_output_begin(&o, "a.csv", 5, ".csv", &f, err, sizeof err));
    fputs("later\n", f.w.f);
    assert_true(lua_output_commit(&f, err, sizeof err));
    snprintf(want, sizeof want, "%s/a-2.csv", dir);
    assert_string_equal(f.w.path, want);
    read_file("a.csv", text, sizeof text);
    assert_string_equal(text, "first\n");
    lua_output_close(&o);
    snprintf(path, sizeof path, "%s/a-2.csv", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/l-2.csv", dir);
    remove(path);
    remove(link);
}

static void test_byte_limit(void **state)
{
    (void)state;
    char err[512], text[64];
    struct lua_output o;
    struct lua_output_file f;
    lua_output_init(&o, dir, false);
    o.max_bytes = 10;
    assert_true(lua_output_begin(&o, "b.csv", 5, ".csv", &f, err, sizeof err));
    fputs("123456", f.w.f);
    assert_true(lua_output_commit(&f, err, sizeof err));
    assert_true(lua_output_begin(&o, "b.csv", 5, ".csv", &f, err, sizeof err));
    fputs("abcdef", f.w.f); /* 12 bytes in all: over */
    assert_false(lua_output_commit(&f, err, sizeof err));
    assert_non_null(strstr(err, "a script may write in one run (nothing was written)"));
    read_file("b.csv", text, sizeof text);
    assert_string_equal(text, "123456");
    lua_output_close(&o);
}

static void test_output_dir_symlink_refused(void **state)
{
    (void)state;
    char err[512], link[512];
    snprintf(link, sizeof link, "%s/out-link", dir);
    assert_int_equal(symlink(dir, link), 0);
    struct lua_output o;
    struct lua_output_file f;
    lua_output_init(&o, link, false);
    assert_false(lua_output_begin(&o, "c.csv", 5, ".csv", &f, err, sizeof err));
    assert_non_null(strstr(err, "is a symbolic link"));
    lua_output_close(&o);
    remove(link);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_atomic_replace_and_abort),
        cmocka_unit_test(test_byte_limit),
        cmocka_unit_test(test_output_dir_symlink_refused),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
