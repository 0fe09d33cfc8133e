/* probe_merge_catalog: probe.yaml merged by id. The merged text parses to
 * the same values as its parts (quoting kept where it matters), entries of
 * other machines stay, this machine's replace theirs by id, and a file that
 * is not a catalog is refused rather than rewritten. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "yamldoc.h"

static const char header[] = "# merged\n";

static struct ydoc *parse(const char *text)
{
    char err[512];
    struct ydoc *d = ydoc_load_string("merged", text, strlen(text), err, sizeof err);
    if (!d)
        fail_msg("the merged text does not parse: %s\n%s", err, text);
    return d;
}

static const struct ynode *entry(const struct ydoc *d, const char *kind, const char *id)
{
    const struct ynode *list = ynode_get(d->root, kind);
    for (size_t i = 0; list && i < list->count; i++) {
        const struct ynode *v = ynode_get(list->items[i], "id");
        if (v && strcmp(v->value, id) == 0)
            return list->items[i];
    }
    return NULL;
}

static void test_merge_by_id(void **state)
{
    (void)state;
    const char *old = "# machine A\n"
                      "cpus:\n"
                      "  - {id: a-cpu, name: 'A: \"quoted\" # not a comment', cores: 4,\n"
                      "     vector_ext: 'AVX2, FMA3 (no AVX-512)'}\n"
                      "  - id: shared\n"
                      "    name: stale\n"
                      "    tags: [x, 'y z', {k: v}]\n"
                      "storage:\n"
                      "  - id: a-disk\n"
                      "    read_gbs: 1e9\n"
                      "    empty: ''\n";
    const char *fresh = "accelerators:\n  - id: \"b-gpu\"\n    name: \"B GPU\"\n"
                        "cpus:\n  - id: \"shared\"\n    name: \"fresh\"\n";
    char out[4096], err[512];
    assert_true(probe_merge_catalog("probe.yaml", old, strlen(old), fresh, header, out, sizeof out,
                                    err, sizeof err));
    assert_int_equal(strncmp(out, header, strlen(header)), 0);
    struct ydoc *d = parse(out);
    const struct ynode *a = entry(d, "cpus", "a-cpu");
    assert_non_null(a);
    assert_string_equal(ynode_get(a, "name")->value, "A: \"quoted\" # not a comment");
    assert_string_equal(ynode_get(a, "vector_ext")->value, "AVX2, FMA3 (no AVX-512)");
    assert_string_equal(ynode_get(a, "cores")->value, "4");
    assert_false(ynode_get(a, "cores")->quoted); /* numbers stay numbers */
    const struct ynode *shared = entry(d, "cpus", "shared");
    assert_string_equal(ynode_get(shared, "name")->value, "fresh");
    assert_null(ynode_get(shared, "tags")); /* the stale entry is gone whole */
    assert_int_equal(ynode_get(d->root, "cpus")->count, 2);
    assert_non_null(entry(d, "accelerators", "b-gpu"));
    const struct ynode *disk = entry(d, "storage", "a-disk");
    assert_string_equal(ynode_get(disk, "read_gbs")->value, "1e9");
    assert_true(ynode_get(disk, "empty")->quoted);
    ydoc_free(d);
    /* A quoted "null" stays a string; lists and nested maps survive. */
    const char *old2 = "cpus:\n  - id: x\n    notes: \"null\"\n    list: [1, 'two', {k: [a]}]\n";
    assert_true(probe_merge_catalog("probe.yaml", old2, strlen(old2), fresh, header, out,
                                    sizeof out, err, sizeof err));
    d = parse(out);
    const struct ynode *x = entry(d, "cpus", "x");
    assert_true(ynode_get(x, "notes")->quoted);
    const struct ynode *list = ynode_get(x, "list");
    assert_int_equal(list->count, 3);
    assert_string_equal(list->items[1]->value, "two");
    assert_string_equal(ynode_get(list->items[2], "k")->items[0]->value, "a");
    ydoc_free(d);
}

static void test_no_old_file_and_refusals(void **state)
{
    (void)state;
    char out[4096], err[512];
    const char *fresh = "cpus:\n  - id: \"c\"\n    name: \"C\"\n";
    assert_true(probe_merge_catalog("probe.yaml", NULL, 0, fresh, header, out, sizeof out, err,
                                    sizeof err));
    struct ydoc *d = parse(out);
    assert_non_null(entry(d, "cpus", "c"));
    ydoc_free(d);
    const char *bad[] = {"- just a list\n", "cpus: 3\n", "cpus: [unclosed\n"};
    for (size_t i = 0; i < 3; i++) {
        err[0] = '\0';
        assert_false(probe_merge_catalog("probe.yaml", bad[i], strlen(bad[i]), fresh, header, out,
                                         sizeof out, err, sizeof err));
        assert_non_null(strstr(err, "probe.yaml"));
    }
    /* Too small a buffer: refused, not cut. */
    char small[40];
    assert_false(probe_merge_catalog("probe.yaml", NULL, 0, fresh, header, small, sizeof small, err,
                                     sizeof err));
    assert_non_null(strstr(err, "too large"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_by_id),
        cmocka_unit_test(test_no_old_file_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
