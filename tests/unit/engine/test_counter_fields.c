/* counter_fields: the sim counters described once. Every row lies inside
 * struct sim_counters with the size its type says, keys are unique and
 * lowercase, derived rows name a stored counter at the same place, every
 * member of the struct is described, and the values read back what a run
 * counted. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "counter_fields.h"
#include "sim.h"

#include "../../catalog_fixture.h"

static size_t type_size(int type)
{
    switch (type) {
    case COUNTER_NUM:
        return sizeof(double);
    case COUNTER_COUNT:
        return sizeof(uint64_t);
    case COUNTER_BOOL:
        return sizeof(bool);
    case COUNTER_STAGES:
        return STAGE_COUNT * sizeof(double);
    default:
        return 0;
    }
}

static void test_rows_lie_within_the_struct(void **state)
{
    (void)state;
    assert_true(counter_field_count > 10);
    for (size_t i = 0; i < counter_field_count; i++) {
        const struct counter_field *f = &counter_fields[i];
        assert_non_null(f->key);
        assert_non_null(f->help);
        assert_non_null(f->unit);
        assert_true(f->help[0] != '\0');
        assert_true(f->offset + f->size <= sizeof(struct sim_counters));
        assert_int_equal(f->size, type_size(f->derived_from ? COUNTER_NUM : f->type));
        for (const char *p = f->key; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_');
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(f->key, counter_fields[j].key);
        if (f->type == COUNTER_NUM && !f->derived_from)
            assert_true(f->csv_digits >= 1 && f->csv_digits <= 17);
    }
}

static void test_derived_rows_name_a_stored_counter(void **state)
{
    (void)state;
    int derived = 0;
    for (size_t i = 0; i < counter_field_count; i++) {
        const struct counter_field *f = &counter_fields[i];
        if (!f->derived_from)
            continue;
        derived++;
        const struct counter_field *src = counter_field_find(f->derived_from);
        assert_non_null(src);
        assert_null(src->derived_from);
        assert_int_equal(src->offset, f->offset);
        assert_int_equal(src->type, COUNTER_NUM);
        assert_int_equal(f->type, COUNTER_NUM);
        assert_true(f->divisor > 0 && isfinite(f->divisor));
    }
    assert_true(derived >= 2);
    const struct counter_field *kwh = counter_field_find("energy_kwh");
    assert_non_null(kwh);
    assert_string_equal(kwh->derived_from, "energy_j");
    assert_null(counter_field_find("energy"));
    assert_null(counter_field_find(NULL));
}

/* Every byte of struct sim_counters that holds a value is some row's
 * (padding aside): a new member without a row fails here. */
static void test_every_member_described(void **state)
{
    (void)state;
    unsigned char covered[sizeof(struct sim_counters)];
    memset(covered, 0, sizeof covered);
    for (size_t i = 0; i < counter_field_count; i++)
        memset(covered + counter_fields[i].offset, 1, counter_fields[i].size);
    /* The described bytes add up to the members' sizes: only padding is
     * left over. */
    size_t described = 0;
    for (size_t b = 0; b < sizeof covered; b++)
        described += covered[b];
    struct sim_counters c;
    size_t members =
        sizeof c.time_s + sizeof c.ticks + sizeof c.steps + sizeof c.useful_steps +
        sizeof c.tokens + sizeof c.items_in + sizeof c.items_out + sizeof c.items_inside +
        sizeof c.failures + sizeof c.device_failures + sizeof c.node_failures + sizeof c.restarts +
        sizeof c.checkpoints + sizeof c.lost_s + sizeof c.starved_s + sizeof c.throttled_s +
        sizeof c.checkpoint_s + sizeof c.energy_j + sizeof c.max_rack_temp_c + sizeof c.stopped;
    assert_int_equal(described, members);
    /* and nothing beyond the members: the struct is those plus padding */
    assert_true(sizeof c - members < sizeof(double));
}

static void test_values_read_back(void **state)
{
    (void)state;
    char err[512];
    struct setup s;
    assert_true(setup_load_file(&s, "scenarios/presets/default.yaml", cat, err, sizeof err));
    struct sim_options o;
    sim_default_options(&o);
    struct sim *sim = sim_new(&s, cat, &o, err, sizeof err);
    assert_non_null(sim);
    assert_true(sim_run(sim, 600.0, err, sizeof err));
    struct sim_counters c;
    sim_counters(sim, &c);
    sim_free(sim);
    assert_true(c.steps > 0 && c.energy_j > 0);
    assert_true(counter_field_number(counter_field_find("energy_j"), &c) == c.energy_j);
    assert_true(fabs(counter_field_number(counter_field_find("energy_kwh"), &c) -
                     c.energy_j / 3.6e6) <= 1e-12 * c.energy_j);
    assert_true(fabs(counter_field_number(counter_field_find("tokens_per_s"), &c) -
                     c.tokens / 600.0) <= 1e-9 * c.tokens);
    assert_true(fabs(counter_field_number(counter_field_find("avg_facility_kw"), &c) -
                     c.energy_j / 600.0 / 1000.0) <= 1e-12 * c.energy_j);
    assert_true(counter_field_uint(counter_field_find("steps"), &c) == c.steps);
    assert_true(counter_field_uint(counter_field_find("energy_j"), &c) == 0);
    assert_true(counter_field_number(counter_field_find("stopped"), &c) == 0);
    const struct counter_field *in = counter_field_find("items_in");
    for (int i = 0; i < STAGE_COUNT; i++)
        assert_true(counter_field_stage(in, &c, i) == c.items_in[i]);
    assert_true(counter_field_stage(in, &c, STAGE_COUNT) == 0);
    /* no simulated time: rates divide by 1 s, never by zero */
    struct sim_counters z;
    memset(&z, 0, sizeof z);
    z.tokens = 5;
    assert_true(counter_field_number(counter_field_find("tokens_per_s"), &z) == 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_lie_within_the_struct),
        cmocka_unit_test(test_derived_rows_name_a_stored_counter),
        cmocka_unit_test(test_every_member_described),
        cmocka_unit_test(test_values_read_back),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
