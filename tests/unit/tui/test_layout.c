/* Layout at many sizes, the key table driving the help text, glyph
 * selection, theme role mapping and the stage-text loader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "glyphs.h"
#include "hit.h"
#include "keys.h"
#include "layout.h"
#include "stagetext.h"
#include "state_internal.h" /* white-box: the test reads and sets members */
#include "theme.h"
#include "ui.h"
#include "views.h"

/* Rectangles of one view that must be inside the screen and disjoint. */
static size_t overview_rects(const struct layout *l, const struct rect **out)
{
    size_t n = 0;
    out[n++] = &l->title;
    out[n++] = &l->footer;
    out[n++] = &l->caption;
    for (int i = 0; i < LAYOUT_STAGES; i++)
        out[n++] = &l->box[i];
    for (int i = 0; i < ARROW_COUNT; i++)
        out[n++] = &l->arrow[i];
    out[n++] = &l->support;
    out[n++] = &l->verdict;
    out[n++] = &l->metrics;
    return n;
}

static size_t stage_rects(const struct layout *l, const struct rect **out)
{
    size_t n = 0;
    out[n++] = &l->title;
    out[n++] = &l->footer;
    out[n++] = &l->caption;
    out[n++] = &l->text;
    out[n++] = &l->knobs;
    out[n++] = &l->picture;
    out[n++] = &l->compare;
    out[n++] = &l->live;
    return n;
}

static void check_rects(const struct rect *const *r, size_t n, int cols, int rows)
{
    for (size_t i = 0; i < n; i++) {
        if (!rect_inside(r[i], cols, rows))
            fail_msg("rect %zu (%d,%d %dx%d) outside %dx%d", i, r[i]->y, r[i]->x, r[i]->w, r[i]->h,
                     cols, rows);
        for (size_t j = i + 1; j < n; j++)
            if (rect_overlap(r[i], r[j]))
                fail_msg("rects %zu and %zu overlap at %dx%d", i, j, cols, rows);
    }
}

static void test_layout_sizes(void **state)
{
    (void)state;
    for (int rows = 1; rows <= 100; rows++) {
        for (int cols = 1; cols <= 300; cols += (cols < 100 ? 1 : 7)) {
            for (int cap = 0; cap < 2; cap++) {
                struct layout l;
                const struct rect *r[32];
                bool small = cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS;
                layout_compute(cols, rows, LAYOUT_OVERVIEW, cap, &l);
                assert_int_equal(l.too_small, small);
                assert_int_equal(l.need_cols, LAYOUT_MIN_COLS);
                assert_int_equal(l.need_rows, LAYOUT_MIN_ROWS);
                if (small)
                    continue;
                size_t n = overview_rects(&l, r);
                check_rects(r, n, cols, rows);
                for (int i = 0; i < LAYOUT_STAGES; i++) {
                    assert_true(l.box[i].h >= 6);
                    assert_true(l.box[i].w >= 18);
                }
                assert_true(l.metrics.h >= 5);
                assert_int_equal(l.footer.y, rows - 1);
                /* The narration pane grows with the terminal (a prompt row + transcript). */
                assert_int_equal(l.caption.h, !cap ? 0 : rows >= 40 ? 8 : rows >= 30 ? 5 : 3);
                /* The interconnect sits under the accelerators. */
                assert_int_equal(l.box[3].x, l.box[2].x);
                assert_true(l.box[3].y > l.box[2].y);

                layout_compute(cols, rows, LAYOUT_STAGE, cap, &l);
                assert_false(l.too_small);
                n = stage_rects(&l, r);
                check_rects(r, n, cols, rows);
                assert_true(l.knobs.h >= 5);
                assert_true(l.text.h >= 5);
                assert_true(l.picture.w >= 30);
                assert_true(rect_inside(&l.help, cols, rows));
            }
        }
    }
}

static void test_layout_minimum(void **state)
{
    (void)state;
    struct layout l;
    layout_compute(79, 24, LAYOUT_OVERVIEW, false, &l);
    assert_true(l.too_small);
    layout_compute(80, 23, LAYOUT_STAGE, false, &l);
    assert_true(l.too_small);
    layout_compute(80, 24, LAYOUT_OVERVIEW, false, &l);
    assert_false(l.too_small);
    layout_compute(0, 0, LAYOUT_OVERVIEW, false, &l);
    assert_true(l.too_small);
    layout_compute(-5, -5, LAYOUT_OVERVIEW, false, &l);
    assert_true(l.too_small);
}

static void test_keys_drive_help(void **state)
{
    (void)state;
    static char help[16384];
    size_t len = keys_help_text(help, sizeof help);
    assert_true(len > 0 && len < sizeof help - 1);
    for (size_t i = 0; i < keys_count(); i++) {
        const struct key_binding *b = keys_get(i);
        assert_non_null(b->label);
        assert_non_null(b->cmd->help);
        /* Some line shows this help with this key among its labels. */
        bool found = false;
        for (const char *p = help; *p && !found;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
            const char *h = strstr(line, b->cmd->help);
            if (h && line[0] == ' ') {
                char labels[128];
                snprintf(labels, sizeof labels, "/%.*s/", (int)(h - line - 3), line + 2);
                for (char *q = labels; *q; q++)
                    if (*q == ' ')
                        *q = '\0';
                strcat(labels, "/");
                char want[64];
                snprintf(want, sizeof want, "/%s/", b->label);
                /* labels was cut at the first space: rebuild "/a/b/" form */
                char joined[160];
                snprintf(joined, sizeof joined, "%s/", labels);
                found = strstr(joined, want) != NULL;
            }
            p = nl ? nl + 1 : p + n;
        }
        if (!found)
            fail_msg("binding '%s' (%s) missing from help", b->label, b->cmd->help);
    }
    /* Every action but the internal ones has a key. */
    for (int a = ACT_QUIT; a < ACT_COUNT; a++) {
        if (a == ACT_KNOB_PICK)
            continue;
        bool found = false;
        for (size_t i = 0; i < keys_count(); i++)
            found = found || keys_get(i)->cmd->action == (enum key_action)a;
        if (!found)
            fail_msg("action %d has no key", a);
    }
    /* The man page lists every label too. */
    char *man = NULL;
    size_t man_len = 0;
    FILE *f = open_memstream(&man, &man_len);
    assert_non_null(f);
    keys_write_man(f);
    fclose(f);
    assert_non_null(strstr(man, ".TP"));
    assert_non_null(strstr(man, "quit mlviz"));
    free(man);
}

static void test_keys_lookup(void **state)
{
    (void)state;
    int arg = -1;
    assert_int_equal(keys_lookup('q', KEYCTX_OVERVIEW, &arg), ACT_QUIT);
    assert_int_equal(keys_lookup('3', KEYCTX_OVERVIEW, &arg), ACT_OPEN);
    assert_int_equal(arg, 2);
    /* + is speed on the overview but turns the knob in a stage view. */
    assert_int_equal(keys_lookup('+', KEYCTX_OVERVIEW, &arg), ACT_FASTER);
    assert_int_equal(keys_lookup('+', KEYCTX_STAGE, &arg), ACT_KNOB_INC);
    assert_int_equal(keys_lookup(27, KEYCTX_STAGE, &arg), ACT_BACK);
    assert_int_equal(keys_lookup('\n', KEYCTX_OVERVIEW, &arg), ACT_ENTER);
    assert_int_equal(keys_lookup('n', KEYCTX_TOUR, &arg), ACT_TOUR_NEXT);
    assert_int_equal(keys_lookup('z', KEYCTX_OVERVIEW, &arg), ACT_NONE);
    const struct key_binding *foot[32];
    size_t n = keys_footer(KEYCTX_OVERVIEW, foot, 32);
    assert_true(n >= 5);
    for (size_t i = 0; i < n; i++)
        assert_non_null(foot[i]->hint);
}

static void test_hits(void **state)
{
    (void)state;
    struct hit_map m;
    hit_clear(&m);
    hit_add(&m, 1, 1, 5, 10, ACT_OPEN, 2);
    hit_add(&m, 2, 2, 1, 3, ACT_BACK, 0);
    assert_null(hit_find(&m, 0, 0));
    assert_int_equal(hit_find(&m, 3, 5)->action, ACT_OPEN);
    assert_int_equal(hit_find(&m, 2, 3)->action, ACT_BACK);
    hit_add(&m, 0, 0, 0, 10, ACT_QUIT, 0); /* empty: ignored */
    assert_null(hit_find(&m, 0, 0));
}

static void test_glyphs(void **state)
{
    (void)state;
    assert_true(glyphs_want_utf8("UTF-8", false));
    assert_true(glyphs_want_utf8("utf8", false));
    assert_false(glyphs_want_utf8("UTF-8", true));
    assert_false(glyphs_want_utf8("ANSI_X3.4-1968", false));
    assert_false(glyphs_want_utf8(NULL, false));
    const struct glyphs *a = glyphs_table(false);
    const struct glyphs *u = glyphs_table(true);
    assert_false(a->utf8);
    assert_true(u->utf8);
    /* The ASCII table is pure 7-bit. */
    const char *const *fields = (const char *const *)&a->h;
    size_t nfields = (sizeof *a - offsetof(struct glyphs, h)) / sizeof(const char *);
    for (size_t i = 0; i < nfields; i++)
        for (const char *p = fields[i]; *p; p++)
            assert_true((unsigned char)*p < 128);
    glyphs_use(true);
    assert_ptr_equal(glyphs_active(), u);
    glyphs_use(false);
    assert_ptr_equal(glyphs_active(), a);
}

static void test_theme(void **state)
{
    (void)state;
    assert_int_equal(theme_choose(THEME_DEFAULT, 256, false), THEME_DEFAULT);
    assert_int_equal(theme_choose(THEME_DEFAULT, 8, false), THEME_BASIC);
    assert_int_equal(theme_choose(THEME_DEFAULT, 0, false), THEME_MONO);
    assert_int_equal(theme_choose(THEME_DEFAULT, 256, true), THEME_MONO);
    assert_int_equal(theme_choose(THEME_CONTRAST, 8, false), THEME_CONTRAST);
    assert_int_equal(theme_choose(THEME_CONTRAST, 256, true), THEME_MONO);
    enum theme_id t;
    assert_true(theme_parse("contrast", &t));
    assert_int_equal(t, THEME_CONTRAST);
    assert_true(theme_parse("mono", &t));
    assert_false(theme_parse("neon", &t));
    for (int r = 0; r < ROLE_COUNT; r++) {
        assert_non_null(theme_role_names[r]);
        struct theme_style m = theme_style(THEME_MONO, (enum theme_role)r);
        assert_int_equal(m.fg, -1); /* mono carries no colour */
        assert_int_equal(m.bg, -1);
        for (int th = THEME_DEFAULT; th < THEME_COUNT; th++) {
            struct theme_style s = theme_style((enum theme_id)th, (enum theme_role)r);
            assert_true(s.fg >= -1 && s.fg < 256);
            assert_true(s.bg >= -1 && s.bg < 256);
            if (th == THEME_BASIC || th == THEME_CONTRAST) {
                assert_true(s.fg < 8);
                assert_true(s.bg < 8);
            }
        }
    }
    assert_null(theme_role_names[ROLE_COUNT]);
    /* Alarms stand out even without colour. */
    assert_true(theme_style(THEME_MONO, ROLE_BOTTLENECK).attrs != 0);
    assert_true(theme_style(THEME_MONO, ROLE_FAILED).attrs != 0);
    assert_true(theme_style(THEME_MONO, ROLE_PAUSED).attrs != 0);
    assert_int_equal(theme_role_for_util(0.1), ROLE_STAGE_IDLE);
    assert_int_equal(theme_role_for_util(0.5), ROLE_STAGE_MID);
    assert_int_equal(theme_role_for_util(0.95), ROLE_STAGE_BUSY);
    assert_int_equal(theme_role_for_util(0.0 / 0.0), ROLE_STAGE_IDLE);
}

/* Figures on an unknown paper: in the role's colours only where those have
 * a contrast of at least THEME_FIGURE_CONTRAST_MIN on white and on black
 * paper, otherwise in the terminal's own ink; never dim. */
static void test_theme_figures(void **state)
{
    (void)state;
    /* xterm 243 (#767676): 4.54:1 on white, 4.62:1 on black. */
    assert_true(fabs(theme_contrast(243, -1, THEME_PAPER_LIGHT) - 4.54) < 0.01);
    assert_true(fabs(theme_contrast(243, -1, THEME_PAPER_DARK) - 4.62) < 0.01);
    assert_true(fabs(theme_contrast(243, -1, THEME_PAPER_UNKNOWN) - 4.54) < 0.01);
    assert_true(fabs(theme_contrast(-1, -1, THEME_PAPER_UNKNOWN) - 21) < 0.01);
    assert_true(theme_contrast(7, -1, THEME_PAPER_DARK) == 0); /* colour 7 is the terminal's */
    for (int th = THEME_DEFAULT; th < THEME_COUNT; th++)
        for (int r = 0; r < ROLE_COUNT; r++) {
            struct theme_style f =
                theme_figure_style((enum theme_id)th, THEME_PAPER_UNKNOWN, (enum theme_role)r);
            assert_false(f.attrs & THEME_ATTR_DIM);
            if (th == THEME_DEFAULT || th == THEME_LIGHT)
                assert_true(theme_contrast(f.fg, f.bg, THEME_PAPER_UNKNOWN) >=
                            THEME_FIGURE_CONTRAST_MIN);
        }
    struct theme_style dim = theme_figure_style(THEME_DEFAULT, THEME_PAPER_UNKNOWN, ROLE_DIM);
    assert_int_equal(dim.fg, -1);
    assert_int_equal(dim.bg, -1);
    /* A known paper keeps a tuned grey that has the margin there. */
    assert_int_equal(theme_figure_style(THEME_LIGHT, THEME_PAPER_LIGHT, ROLE_DIM).fg,
                     theme_style(THEME_LIGHT, ROLE_DIM).fg);
    assert_int_equal(theme_figure_style(THEME_DEFAULT, THEME_PAPER_DARK, ROLE_DIM).fg, -1);
    /* The title bar's white on navy has it on any paper. */
    assert_int_equal(theme_figure_style(THEME_DEFAULT, THEME_PAPER_UNKNOWN, ROLE_TITLE).bg,
                     theme_style(THEME_DEFAULT, ROLE_TITLE).bg);
    /* The contrast theme's colours are the terminal's: kept. */
    assert_int_equal(theme_figure_style(THEME_CONTRAST, THEME_PAPER_UNKNOWN, ROLE_DIM).fg,
                     7); /* COLOR_WHITE */
}

/* Busy cores: two significant digits, none finer than a hundredth. */
static void test_fmt_cores(void **state)
{
    (void)state;
    static const struct {
        double cores;
        const char *text;
    } cases[] = {{0, "0"},          {-1, "0"},      {0.0 / 0.0, "0"}, {0.00077, "<0.01"},
                 {0.0099, "<0.01"}, {0.01, "0.01"}, {0.084, "0.08"},  {0.84, "0.84"},
                 {1.34, "1.3"},     {14.2, "14"},   {112, "112"}};
    char buf[16];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        view_fmt_cores(buf, sizeof buf, cases[i].cores);
        assert_string_equal(buf, cases[i].text);
    }
}

static void test_stagetext_asset(void **state)
{
    (void)state;
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/assets/stages.yaml", mlviz_data_dir());
    struct stage_texts *t = malloc(sizeof *t);
    assert_non_null(t);
    if (!stagetext_load(path, t, err, sizeof err))
        fail_msg("%s", err);
    for (int i = 0; i < STAGETEXT_STAGES; i++) {
        assert_true(strlen(t->stage[i].text) > 100);
        assert_true(strlen(t->stage[i].tour) > 20);
    }
    assert_string_equal(t->stage[0].id, "data");
    assert_true(strlen(t->tour_intro) > 20);
    /* Strict: unknown keys are errors with a position. */
    assert_false(stagetext_load_string("bad.yaml", "stages: []\nwat: 1\n", t, err, sizeof err));
    assert_non_null(strstr(err, "bad.yaml:2:1"));
    assert_false(stagetext_load_string("bad.yaml",
                                       "stages:\n  - id: data\n    title: D\n    text: x\n    "
                                       "colour: red\n",
                                       t, err, sizeof err));
    assert_non_null(strstr(err, "bad.yaml:5:5"));
    assert_false(stagetext_load_string(
        "bad.yaml", "stages:\n  - id: data\n    title: D\n    text: x\n", t, err, sizeof err));
    assert_non_null(strstr(err, "missing stage cpus"));
    free(t);
}

/* Knobs come from the field table, and one step does what it says. */
static const struct field *knob(struct ui *u, int stage, const char *path, int *index)
{
    for (int i = 0; i < u->knobs[stage].count; i++)
        if (strcmp(u->knobs[stage].field[i]->path, path) == 0) {
            *index = i;
            return u->knobs[stage].field[i];
        }
    fail_msg("no knob %s in stage %d", path, stage + 1);
    return NULL;
}

/* Every knob of the field table is in exactly one stage view of each mode
 * it belongs to: serving's (inference.*) in the inference mode, training's
 * and the data path's in training, the others in both; in the inference
 * mode a batch of "auto" steps from the batch served. Returns the knobs of
 * the training mode; u is left in it. */
static int knobs_per_mode(struct ui *u)
{
    const struct field_table *t = setup_fields();
    int seen = 0;
    for (int infer = 1; infer >= 0; infer--) {
        u->infer_mode = infer;
        knobs_build(u);
        for (size_t i = 0; i < t->count; i++) {
            const struct field *f = &t->fields[i];
            if (!(f->flags & FIELD_KNOB))
                continue;
            bool serving = strncmp(f->path, "inference.", 10) == 0;
            bool training = strncmp(f->path, "training.", 9) == 0 ||
                            strncmp(f->path, "data.", 5) == 0 ||
                            strcmp(f->path, "model.seq_len") == 0;
            int found = 0;
            for (int s = 0; s < STAGE_COUNT; s++)
                for (int k = 0; k < u->knobs[s].count; k++)
                    found += u->knobs[s].field[k] == f;
            assert_int_equal(found, infer ? !training : !serving);
            seen += found && !infer;
        }
    }
    /* In the inference mode a batch of "auto" steps from the batch served. */
    int i;
    u->infer_mode = true;
    knobs_build(u);
    knob(u, STAGE_CPUS, "inference.batch", &i);
    double served = u->infer.batch;
    assert_true(served > 1);
    assert_true(knobs_step(u, STAGE_CPUS, i, -1));
    assert_true(fabs(u->setup.inference.batch - served / 2) <= served * 0.05);
    assert_int_equal(u->infer.batch, (int)u->setup.inference.batch); /* evaluated again */
    assert_true(knobs_step(u, STAGE_CPUS, i, 0));
    u->infer_mode = false;
    knobs_build(u);
    return seen;
}

static void test_knobs(void **state)
{
    (void)state;
    struct ui *u = calloc(1, sizeof *u);
    assert_non_null(u);
    u->cat = cli_load_catalog(NULL);
    assert_non_null(u->cat);
    assert_true(cli_load_setup("default", u->cat, &u->setup, &u->res));
    ui_eval(u);
    int seen = knobs_per_mode(u);
    const struct field_table *t = setup_fields();
    int total = 0;
    for (int s = 0; s < STAGE_COUNT; s++) {
        assert_true(u->knobs[s].count >= 4);
        total += u->knobs[s].count;
    }
    assert_int_equal(total, seen);

    int i;
    /* Counts double and halve. */
    knob(u, STAGE_ACCELERATORS, "training.global_batch", &i);
    int gb = u->setup.training.global_batch;
    assert_true(knobs_step(u, STAGE_ACCELERATORS, i, +1));
    assert_int_equal(u->setup.training.global_batch, 2 * gb);
    assert_true(knobs_step(u, STAGE_ACCELERATORS, i, -1));
    assert_int_equal(u->setup.training.global_batch, gb);
    /* Small ranges step by one. */
    knob(u, STAGE_ACCELERATORS, "training.zero_stage", &i);
    int z = u->setup.training.zero_stage;
    knobs_step(u, STAGE_ACCELERATORS, i, z < 3 ? +1 : -1);
    assert_int_equal(u->setup.training.zero_stage, z < 3 ? z + 1 : z - 1);
    /* Booleans toggle, enums cycle. */
    knob(u, STAGE_ACCELERATORS, "training.flash_attention", &i);
    bool fa = u->setup.training.flash_attention;
    assert_true(knobs_step(u, STAGE_ACCELERATORS, i, +1));
    assert_int_equal(u->setup.training.flash_attention, !fa);
    knob(u, STAGE_ACCELERATORS, "training.precision", &i);
    int p = u->setup.training.precision;
    knobs_step(u, STAGE_ACCELERATORS, i, +1); /* may be refused when the device lacks it */
    knobs_step(u, STAGE_ACCELERATORS, i, -1);
    assert_int_equal(u->setup.training.precision, p);
    /* Catalog references cycle through the catalog and come back. */
    knob(u, STAGE_INFRASTRUCTURE, "facility.cooling", &i);
    char cooling[FIELD_STR_LEN];
    snprintf(cooling, sizeof cooling, "%s", u->setup.facility.cooling);
    assert_true(knobs_step(u, STAGE_INFRASTRUCTURE, i, +1));
    assert_string_not_equal(u->setup.facility.cooling, cooling);
    assert_true(knobs_step(u, STAGE_INFRASTRUCTURE, i, -1));
    assert_string_equal(u->setup.facility.cooling, cooling);
    /* "auto" numbers start from the value the model used, and go back to auto. */
    knob(u, STAGE_DATA, "cluster.storage_bw_gbs", &i);
    double bw = u->report.stages.storage_bw_gbs;
    assert_true(knobs_step(u, STAGE_DATA, i, -1));
    assert_true(u->setup.cluster.storage_bw_gbs > 0);
    assert_true(fabs(u->setup.cluster.storage_bw_gbs - bw / 2) <= bw * 0.05);
    assert_true(knobs_step(u, STAGE_DATA, i, 0));
    assert_true(u->setup.cluster.storage_bw_gbs == FIELD_AUTO);
    /* Labels read as words. */
    char label[64];
    knobs_label(fields_find(t, "data.loader_workers_per_device"), label, sizeof label);
    assert_string_equal(label, "loader workers/device");
    if (u->sim)
        sim_free(u->sim);
    catalog_free(u->cat);
    free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_sizes),
        cmocka_unit_test(test_layout_minimum),
        cmocka_unit_test(test_keys_drive_help),
        cmocka_unit_test(test_keys_lookup),
        cmocka_unit_test(test_hits),
        cmocka_unit_test(test_glyphs),
        cmocka_unit_test(test_theme),
        cmocka_unit_test(test_theme_figures),
        cmocka_unit_test(test_fmt_cores),
        cmocka_unit_test(test_stagetext_asset),
        cmocka_unit_test(test_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
