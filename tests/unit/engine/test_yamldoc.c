/* yamldoc: the YAML tree with positions that every loader reports from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "yamldoc.h"

static struct ydoc *load(const char *text, char *err, size_t err_len)
{
    return ydoc_load_string("t.yaml", text, strlen(text), err, err_len);
}

/* Loads text that must fail; checks the whole "t.yaml:L:C: " prefix and a
 * substring of the message. */
static void expect_error(const char *text, int line, int col, const char *substring)
{
    char err[512], prefix[64];
    struct ydoc *doc = load(text, err, sizeof err);
    if (doc) {
        ydoc_free(doc);
        fail_msg("'%s' loaded but should fail with %s", text, substring);
    }
    snprintf(prefix, sizeof prefix, "t.yaml:%d:%d: ", line, col);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        fail_msg("expected prefix '%s', got '%s'", prefix, err);
    if (!strstr(err, substring))
        fail_msg("expected '%s' in '%s'", substring, err);
}

static void test_positions_block(void **state)
{
    (void)state;
    char err[256];
    struct ydoc *doc = load("# comment\n"
                            "name: x\n"
                            "cluster:\n"
                            "  nodes: 4\n"
                            "  node:\n"
                            "    accelerator:   h100-sxm\n",
                            err, sizeof err);
    assert_non_null(doc);
    assert_string_equal(doc->file, "t.yaml");
    const struct ynode *root = doc->root;
    assert_non_null(root);
    assert_int_equal(root->kind, YNODE_MAP);
    assert_int_equal(root->line, 2);
    assert_int_equal(root->col, 1);
    assert_int_equal(root->count, 2);
    /* keys keep their own positions */
    assert_string_equal(root->keys[1]->value, "cluster");
    assert_int_equal(root->keys[1]->line, 3);
    assert_int_equal(root->keys[1]->col, 1);
    const struct ynode *cluster = ynode_get(root, "cluster");
    assert_non_null(cluster);
    assert_int_equal(cluster->kind, YNODE_MAP);
    assert_int_equal(cluster->line, 4); /* a block mapping starts at its first key */
    assert_int_equal(cluster->col, 3);
    const struct ynode *nodes = ynode_get(cluster, "nodes");
    assert_non_null(nodes);
    assert_int_equal(nodes->kind, YNODE_SCALAR);
    assert_string_equal(nodes->value, "4");
    assert_int_equal(nodes->line, 4);
    assert_int_equal(nodes->col, 10);
    const struct ynode *acc = ynode_get(ynode_get(cluster, "node"), "accelerator");
    assert_non_null(acc);
    assert_string_equal(acc->value, "h100-sxm");
    assert_int_equal(acc->line, 6);
    assert_int_equal(acc->col, 20); /* the value, not the key or the spaces */
    assert_false(acc->quoted);
    ydoc_free(doc);
}

static void test_positions_flow(void **state)
{
    (void)state;
    char err[256];
    struct ydoc *doc = load("training: {global_batch: 64, precision: 'bf16', list: [1, 22, 333]}\n",
                            err, sizeof err);
    assert_non_null(doc);
    const struct ynode *t = ynode_get(doc->root, "training");
    assert_non_null(t);
    assert_int_equal(t->kind, YNODE_MAP);
    assert_int_equal(t->line, 1);
    assert_int_equal(t->col, 11); /* the '{' */
    assert_int_equal(t->keys[0]->col, 12);
    assert_int_equal(ynode_get(t, "global_batch")->col, 26);
    const struct ynode *p = ynode_get(t, "precision");
    assert_string_equal(p->value, "bf16");
    assert_true(p->quoted);
    assert_int_equal(p->col, 41); /* the opening quote */
    const struct ynode *l = ynode_get(t, "list");
    assert_int_equal(l->kind, YNODE_SEQ);
    assert_int_equal(l->count, 3);
    assert_int_equal(l->col, 55);
    assert_string_equal(l->items[2]->value, "333");
    assert_int_equal(l->items[2]->col, 63);
    assert_null(l->keys);
    ydoc_free(doc);
}

static void test_sequences(void **state)
{
    (void)state;
    char err[256];
    struct ydoc *doc = load("- a\n- {b: 1}\n- [c, d]\n-\n", err, sizeof err);
    assert_non_null(doc);
    const struct ynode *r = doc->root;
    assert_int_equal(r->kind, YNODE_SEQ);
    assert_int_equal(r->count, 4);
    assert_string_equal(r->items[0]->value, "a");
    assert_int_equal(r->items[1]->kind, YNODE_MAP);
    assert_int_equal(r->items[1]->line, 2);
    assert_int_equal(r->items[2]->kind, YNODE_SEQ);
    assert_int_equal(r->items[2]->count, 2);
    assert_true(ynode_is_null(r->items[3])); /* "-" with nothing after it */
    /* ynode_get on a sequence or a scalar finds nothing */
    assert_null(ynode_get(r, "a"));
    assert_null(ynode_get(r->items[0], "a"));
    assert_null(ynode_get(NULL, "a"));
    ydoc_free(doc);
}

static void test_null_handling(void **state)
{
    (void)state;
    char err[256];
    struct ydoc *doc = load("a: ~\nb: null\nc:\nd: Null\ne: NULL\nf: \"null\"\ng: ''\n"
                            "h: nil\ni: 0\nj: '~'\n",
                            err, sizeof err);
    assert_non_null(doc);
    const struct ynode *r = doc->root;
    assert_true(ynode_is_null(ynode_get(r, "a")));
    assert_true(ynode_is_null(ynode_get(r, "b")));
    assert_true(ynode_is_null(ynode_get(r, "c")));
    assert_true(ynode_is_null(ynode_get(r, "d")));
    assert_true(ynode_is_null(ynode_get(r, "e")));
    /* quoted text is a string even when it spells null */
    assert_false(ynode_is_null(ynode_get(r, "f")));
    assert_true(ynode_get(r, "f")->quoted);
    assert_string_equal(ynode_get(r, "f")->value, "null");
    assert_false(ynode_is_null(ynode_get(r, "g")));
    assert_string_equal(ynode_get(r, "g")->value, "");
    assert_false(ynode_is_null(ynode_get(r, "h")));
    assert_false(ynode_is_null(ynode_get(r, "i")));
    assert_false(ynode_is_null(ynode_get(r, "j")));
    assert_false(ynode_is_null(NULL));
    assert_false(ynode_is_null(r)); /* a mapping is not null */
    /* an empty value sits where the value would be: after "c:" */
    assert_int_equal(ynode_get(r, "c")->line, 3);
    ydoc_free(doc);
}

static void test_scalar_styles(void **state)
{
    (void)state;
    char err[256];
    struct ydoc *doc =
        load("a: 'it''s'\nb: \"tab\\there\"\nc: |\n  line1\n  line2\nd: >\n  folded\n"
             "  text\ne: plain words here\n",
             err, sizeof err);
    assert_non_null(doc);
    const struct ynode *r = doc->root;
    assert_string_equal(ynode_get(r, "a")->value, "it's");
    assert_true(ynode_get(r, "a")->quoted);
    assert_string_equal(ynode_get(r, "b")->value, "tab\there");
    assert_string_equal(ynode_get(r, "c")->value, "line1\nline2\n");
    assert_true(ynode_get(r, "c")->quoted); /* block scalars are text */
    assert_string_equal(ynode_get(r, "d")->value, "folded text\n");
    assert_string_equal(ynode_get(r, "e")->value, "plain words here");
    assert_false(ynode_get(r, "e")->quoted);
    ydoc_free(doc);
}

static void test_empty_documents(void **state)
{
    (void)state;
    char err[256];
    const char *empties[] = {"", "# only a comment\n", "\n\n\n"};
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        struct ydoc *doc = load(empties[i], err, sizeof err);
        assert_non_null(doc);
        assert_null(doc->root);
        ydoc_free(doc);
    }
    /* "---" alone is a document holding one empty (null) scalar */
    const char *bare[] = {"---\n", "---\n...\n"};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        struct ydoc *doc = load(bare[i], err, sizeof err);
        assert_non_null(doc);
        assert_true(doc->root == NULL || ynode_is_null(doc->root));
        ydoc_free(doc);
    }
    /* one explicit document is fine */
    struct ydoc *doc = load("---\na: 1\n...\n", err, sizeof err);
    assert_non_null(doc);
    assert_string_equal(ynode_get(doc->root, "a")->value, "1");
    assert_int_equal(ynode_get(doc->root, "a")->line, 2);
    ydoc_free(doc);
}

static void test_duplicate_keys(void **state)
{
    (void)state;
    expect_error("a: 1\nb: 2\na: 3\n", 3, 1, "key 'a' appears twice (first on line 1)");
    expect_error("m:\n  x: 1\n  y: 2\n  x: 3\n", 4, 3, "key 'x' appears twice (first on line 2)");
    expect_error("m: {x: 1, x: 2}\n", 1, 11, "key 'x' appears twice");
    /* the same key in different mappings is fine */
    char err[256];
    struct ydoc *doc = load("a: {x: 1}\nb: {x: 2}\n", err, sizeof err);
    assert_non_null(doc);
    ydoc_free(doc);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    expect_error("a: 1\n  b: 2\n", 2, 4, "YAML syntax error: mapping values are not allowed");
    expect_error("a:\n\tb: 1\n", 2, 1, "YAML syntax error");
    /* an unclosed bracket is reported where it opens */
    expect_error("a: {b: 1\nc: 2\n", 1, 4, "did not find expected ',' or '}'");
    expect_error("a: [1, 2\n", 1, 4, "while parsing a flow sequence");
    expect_error("a: 1\n- b\n", 2, 1, "YAML syntax error");
    expect_error("a: 1\n---\nb: 2\n", 2, 1, "only one YAML document per file is allowed");
    expect_error("a: &x 1\n", 1, 4, "anchors (&name) are not supported");
    expect_error("a: *x\n", 1, 4, "aliases (*name) are not supported");
    expect_error("? [a, b]\n: 1\n", 1, 3, "a mapping key must be a plain word");
    expect_error("{a: 1}: 2\n", 1, 1, "a mapping key must be a plain word");
}

static void test_anchor_on_collections(void **state)
{
    (void)state;
    /* The header promises anchors are rejected; an anchor on a mapping or a
     * list must be refused like one on a scalar. */
    expect_error("a: &m {b: 1}\n", 1, 4, "anchors (&name) are not supported");
    expect_error("a: &s [1, 2]\n", 1, 4, "anchors (&name) are not supported");
}

static void test_depth_limit(void **state)
{
    (void)state;
    char text[400], err[256];
    /* 60 levels load... */
    size_t n = 0;
    for (int i = 0; i < 60; i++)
        text[n++] = '[';
    for (int i = 0; i < 60; i++)
        text[n++] = ']';
    text[n] = '\0';
    struct ydoc *doc = load(text, err, sizeof err);
    assert_non_null(doc);
    ydoc_free(doc);
    /* ...150 do not, and the message says why */
    n = 0;
    for (int i = 0; i < 150; i++)
        text[n++] = '[';
    for (int i = 0; i < 150; i++)
        text[n++] = ']';
    text[n] = '\0';
    doc = load(text, err, sizeof err);
    assert_null(doc);
    assert_non_null(strstr(err, "nesting is too deep"));
    assert_int_equal(strncmp(err, "t.yaml:1:", 9), 0);
}

static void test_not_utf8(void **state)
{
    (void)state;
    char err[256];
    const char bad[] = "a: caf\xe9\n";
    struct ydoc *doc = ydoc_load_string("t.yaml", bad, sizeof bad - 1, err, sizeof err);
    assert_null(doc);
    assert_non_null(strstr(err, "not valid UTF-8"));
    assert_int_equal(strncmp(err, "t.yaml:1:7:", 11), 0);
    /* embedded NUL bytes with an explicit length */
    const char nul[] = "a: 1\n\0\0b: 2\n";
    doc = ydoc_load_string("t.yaml", nul, sizeof nul - 1, err, sizeof err);
    assert_null(doc);
    assert_int_equal(strncmp(err, "t.yaml:", 7), 0);
}

static void test_reader_error_position(void **state)
{
    (void)state;
    /* The bad byte is on line 3; a message at 1:1 sends the reader to the
     * wrong place. */
    char err[256];
    const char bad[] = "a: 1\nb: 2\nc: caf\xe9 x\n";
    struct ydoc *doc = ydoc_load_string("t.yaml", bad, sizeof bad - 1, err, sizeof err);
    assert_null(doc);
    if (strncmp(err, "t.yaml:3:", 9) != 0)
        fail_msg("expected the error on line 3, got '%s'", err);
}

static void test_short_error_buffer(void **state)
{
    (void)state;
    char err[16];
    memset(err, 'x', sizeof err);
    struct ydoc *doc = load("a: 1\na: 2\n", err, sizeof err);
    assert_null(doc);
    assert_int_equal(strlen(err), sizeof err - 1); /* truncated, still terminated */
}

static void test_load_file(void **state)
{
    (void)state;
    char err[512];
    struct ydoc *doc = ydoc_load_file("scenarios/presets/default.yaml", err, sizeof err);
    assert_non_null(doc);
    assert_string_equal(doc->file, "scenarios/presets/default.yaml");
    const struct ynode *node = ynode_get(ynode_get(doc->root, "cluster"), "node");
    assert_non_null(node);
    assert_int_equal(node->kind, YNODE_MAP);
    ydoc_free(doc);

    doc = ydoc_load_file("tests/no-such-file.yaml", err, sizeof err);
    assert_null(doc);
    assert_non_null(strstr(err, "tests/no-such-file.yaml"));
    assert_non_null(strstr(err, "cannot open"));

    /* the name in messages is the path */
    doc = ydoc_load_file("tests/setups/bad/syntax-duplicate-key.yaml", err, sizeof err);
    assert_null(doc);
    assert_string_equal(err, "tests/setups/bad/syntax-duplicate-key.yaml:8:1: key 'cluster' "
                             "appears twice (first on line 4)");
}

static void test_tags_refused(void **state)
{
    (void)state;
    expect_error("a: !!str 5\n", 1, 4,
                 "YAML tags such as 'tag:yaml.org,2002:str' are not supported");
    expect_error("a: !foo x\n", 1, 4, "YAML tags such as '!foo'");
    expect_error("a: !!map {b: 1}\n", 1, 4, "tag:yaml.org,2002:map");
    expect_error("!!seq [1]\n", 1, 1, "tag:yaml.org,2002:seq");
    expect_error("!!str key: 1\n", 1, 1, "tag:yaml.org,2002:str");
}

static void test_nul_refused(void **state)
{
    (void)state;
    /* libyaml turns "\0" into a NUL byte; a C string would end there */
    expect_error("\"ab\\0cd\": 1\n", 1, 1,
                 "text contains a NUL character (\\0) after 2 characters");
    expect_error("a: [x, \"\\0\"]\n", 1, 8, "after 0 characters");
    expect_error("a: \"x\\0\"\n", 1, 4, "after 1 character");
}

/* Keys are hashed: 120,000 keys build, look up and catch a duplicate in
 * linear time (the old scan took about a minute on this). */
static void test_many_keys(void **state)
{
    (void)state;
    enum { N = 120000 };
    size_t cap = (size_t)N * 16 + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t used = 0;
    for (int i = 0; i < N; i++)
        used += (size_t)snprintf(text + used, cap - used, "k%06d: %d\n", i, i);
    char err[256];
    struct ydoc *doc = ydoc_load_string("t.yaml", text, used, err, sizeof err);
    assert_non_null(doc);
    assert_int_equal(doc->root->count, N);
    for (int i = 0; i < N; i += 997) {
        char key[16];
        snprintf(key, sizeof key, "k%06d", i);
        const struct ynode *v = ynode_get(doc->root, key);
        assert_non_null(v);
        assert_int_equal(atoi(v->value), i);
    }
    assert_null(ynode_get(doc->root, "k999999"));
    ydoc_free(doc);
    used += (size_t)snprintf(text + used, cap - used, "k060000: again\n");
    doc = ydoc_load_string("t.yaml", text, used, err, sizeof err);
    assert_null(doc);
    assert_string_equal(err, "t.yaml:120001:1: key 'k060000' appears twice (first on line 60001)");
    free(text);
}

static void test_special_files(void **state)
{
    (void)state;
    char err[512];
    assert_null(ydoc_load_file("/dev/null", err, sizeof err));
    assert_string_equal(err, "/dev/null: is a character device, not a regular file");
    assert_null(ydoc_load_file("/dev/zero", err, sizeof err));
    assert_string_equal(err, "/dev/zero: is a character device, not a regular file");
    assert_null(ydoc_load_file("tests", err, sizeof err));
    assert_string_equal(err, "tests: is a directory, not a regular file");
    /* a FIFO with no writer: refused at once instead of waiting forever */
    char dir[] = "/tmp/mlviz-yamldoc-XXXXXX", fifo[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/f.yaml", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_null(ydoc_load_file(fifo, err, sizeof err));
    char want[128];
    snprintf(want, sizeof want, "%s: is a FIFO (named pipe), not a regular file", fifo);
    assert_string_equal(err, want);
    unlink(fifo);
    rmdir(dir);
}

static void test_size_cap(void **state)
{
    (void)state;
    char err[256];
    /* only the length is looked at: no 64 MiB buffer is needed */
    static const char text[] = "a: 1\n";
    assert_null(ydoc_load_string("t.yaml", text, (size_t)64 * 1024 * 1024 + 1, err, sizeof err));
    assert_string_equal(err, "t.yaml: larger than 64 MiB");
}

static void test_kind_names(void **state)
{
    (void)state;
    char err[256];
    struct ydoc *doc = load("m: {}\ns: []\nv: 1\n", err, sizeof err);
    assert_non_null(doc);
    assert_string_equal(ynode_kind_name(ynode_get(doc->root, "m")), "a mapping");
    assert_string_equal(ynode_kind_name(ynode_get(doc->root, "s")), "a list");
    assert_string_equal(ynode_kind_name(ynode_get(doc->root, "v")), "a single value");
    assert_string_equal(ynode_kind_name(NULL), "nothing");
    assert_int_equal(ynode_get(doc->root, "m")->count, 0);
    assert_int_equal(ynode_get(doc->root, "s")->count, 0);
    ydoc_free(doc);
    ydoc_free(NULL); /* harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positions_block),
        cmocka_unit_test(test_positions_flow),
        cmocka_unit_test(test_sequences),
        cmocka_unit_test(test_null_handling),
        cmocka_unit_test(test_scalar_styles),
        cmocka_unit_test(test_empty_documents),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_anchor_on_collections),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_reader_error_position),
        cmocka_unit_test(test_short_error_buffer),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_tags_refused),
        cmocka_unit_test(test_nul_refused),
        cmocka_unit_test(test_many_keys),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_size_cap),
    };
    return cmocka_run_group_tests_name("yamldoc", tests, NULL, NULL);
}
