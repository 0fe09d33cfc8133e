/* setup_resolve_memo (engine/core/setup_check.c): Lua's setup:eval skips the
 * catalog lookups when no catalog id changed. After any sequence of changes
 * it gives exactly what setup_resolve gives: the answer, the message and
 * the resolved entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "setup.h"

#include "../../catalog_fixture.h"

/* The memo and a fresh resolve agree on s. */
static void assert_same(const struct setup *s, struct setup_resolve_memo *m, int *ok_count)
{
    struct resolved fresh, memo;
    char err_fresh[512] = "", err_memo[512] = "";
    memset(&fresh, 0, sizeof fresh);
    memset(&memo, 0, sizeof memo);
    bool ok_fresh = setup_resolve(s, cat, &fresh, err_fresh, sizeof err_fresh);
    bool ok_memo = setup_resolve_memo(s, cat, m, &memo, err_memo, sizeof err_memo);
    assert_int_equal(ok_memo, ok_fresh);
    if (ok_fresh) {
        assert_memory_equal(&memo, &fresh, sizeof fresh);
        (*ok_count)++;
    } else {
        assert_string_equal(err_memo, err_fresh);
    }
}

/* Every catalog-id field of the setup, set in turn to each id of its kind,
 * to nothing and to an unknown id, with checks on the way that fail after
 * the lookups (a ZeRO stage the software does not implement). */
static void test_memo_equals_resolve(void **state)
{
    (void)state;
    struct setup s;
    struct setup_resolve_memo m;
    char err[512];
    int ok_count = 0;
    memset(&m, 0, sizeof m);
    setup_defaults(&s);
    assert_same(&s, &m, &ok_count);
    assert_same(&s, &m, &ok_count); /* from the memo */
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (f->type != FIELD_REF)
            continue;
        char was[FIELD_STR_LEN];
        snprintf(was, sizeof was, "%s", fields_get_string(f, &s));
        enum catalog_kind kind = (enum catalog_kind)f->ref_kind;
        for (size_t k = 0; k < catalog_count(cat, kind); k++) {
            const struct catalog_head *h = catalog_entry(cat, kind, k);
            assert_true(fields_set_text(f, &s, h->id, err, sizeof err));
            assert_same(&s, &m, &ok_count);
            for (int zero = 3; zero >= 0; zero--) {
                s.training.zero_stage = zero;
                assert_same(&s, &m, &ok_count);
            }
        }
        assert_true(fields_set_text(f, &s, "", err, sizeof err));
        assert_same(&s, &m, &ok_count);
        assert_true(fields_set_text(f, &s, "no-such-id", err, sizeof err));
        assert_same(&s, &m, &ok_count);
        assert_true(fields_set_text(f, &s, was, err, sizeof err));
        assert_same(&s, &m, &ok_count);
    }
    assert_true(ok_count > 100);
    /* A memo filled from another catalog is not used for this one (its
     * entries here are nothing: used, they would crash or differ). */
    setup_defaults(&s);
    assert_same(&s, &m, &ok_count);
    struct setup_resolve_memo other = m;
    other.cat = (const struct catalog *)&other;
    memset(&other.r, 0, sizeof other.r);
    assert_same(&s, &other, &ok_count);
    assert_ptr_equal(other.cat, cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memo_equals_resolve),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
