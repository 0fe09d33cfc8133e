/* libFuzzer target: fuzzed setups through the analytic model and every
 * report writer.
 *
 * The first byte picks how the rest is read:
 *   even: the bytes are a setup file, loaded strictly with the shipped
 *         catalog (tests/fuzz/corpus/fuzz_eval holds the presets and the
 *         good test setups, each behind a '\n' first byte);
 *   odd:  the bytes are edits of the default setup and of copies of its
 *         catalog entries, 4 bytes each: a table byte, a field byte and a
 *         16-bit choice of value within the field's own range (its ends,
 *         values next to them, denormals above 0, a spread in between).
 * Whatever loads and resolves is evaluated; the report's doubles must all be
 * finite, and its JSON, CSV, text and checks must not contain nan, inf or a
 * negative zero. Run from the repository root (or set MLVIZ_DATA). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog.h"
#include "fuzz_shipped_catalog.h"
#include "infer.h"
#include "model.h"
#include "report.h"
#include "setup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Copies of the resolved catalog entries, so that edits stay in this run. */
struct entries {
    struct accelerator accel;
    struct cpu cpu;
    struct link intra, host, nic;
    struct storage storage, local;
    struct cooling cooling;
    struct software software;
};

static void copy_entries(struct resolved *r, struct entries *e)
{
    e->accel = *r->accel, r->accel = &e->accel;
    e->cpu = *r->cpu, r->cpu = &e->cpu;
    e->intra = *r->intra_link, r->intra_link = &e->intra;
    e->host = *r->host_link, r->host_link = &e->host;
    if (r->nic)
        e->nic = *r->nic, r->nic = &e->nic;
    e->storage = *r->storage, r->storage = &e->storage;
    if (r->local_storage)
        e->local = *r->local_storage, r->local_storage = &e->local;
    e->cooling = *r->cooling, r->cooling = &e->cooling;
    e->software = *r->software, r->software = &e->software;
}

/* A value of a field's range picked by 16 bits. */
static double pick(const struct field *f, unsigned choice)
{
    double lo = f->min, hi = f->max;
    switch (choice & 7) {
    case 0:
        return lo;
    case 1:
        return hi;
    case 2:
        return nextafter(lo, hi);
    case 3:
        return nextafter(hi, lo);
    case 4:
        return lo <= 0 && hi > 0 ? 4.9e-324 * (1 + (choice >> 3)) : lo;
    case 5:
        return lo + (hi - lo) * (double)(choice >> 3) / 8191.0;
    case 6: /* log-spread over positive ranges */
        if (lo >= 0 && hi > 0) {
            double a = lo > 0 ? lo : DBL_MIN;
            return exp(log(a) + (log(hi) - log(a)) * (double)(choice >> 3) / 8191.0);
        }
        return lo;
    default:
        return (double)(choice >> 3);
    }
}

static void edit(const struct field_table *t, void *obj, uint8_t which, unsigned choice)
{
    if (!t || t->count == 0)
        return;
    const struct field *f = &t->fields[which % t->count];
    if (f->type != FIELD_INT && f->type != FIELD_NUM && f->type != FIELD_NUM_AUTO &&
        f->type != FIELD_BOOL && f->type != FIELD_ENUM)
        return;
    char err[256];
    (void)fields_set_number(f, obj, pick(f, choice), err, sizeof err);
}

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void check_text(const char *what, const char *text)
{
    for (const char *p = text; *p; p++) {
        bool word = (p == text || !is_letter(p[-1])) &&
                    (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) &&
                    !is_letter(p[3]);
        /* "-0", "-0.00" (not "-0.5", not the exponent of "1e-05") */
        bool negative_zero = false;
        if (*p == '-' && p[1] == '0' &&
            (p == text || !(is_letter(p[-1]) || (p[-1] >= '0' && p[-1] <= '9')))) {
            const char *q = p + 1;
            while (*q == '0' || *q == '.')
                q++;
            negative_zero = !(*q >= '1' && *q <= '9');
        }
        if (word || negative_zero) {
            fprintf(stderr, "fuzz_eval: %s output has '%.12s' in:\n%s\n", what, p, text);
            abort();
        }
    }
}

static void write_all(const struct setup *s, const struct resolved *r, const struct model_report *o)
{
    for (int form = 0; form < 4; form++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            return;
        if (form == 0)
            report_write_json(f, s, r, o);
        else if (form == 1)
            report_write_csv(f, s, r, o, true);
        else if (form == 2)
            report_write_text(f, s, r, o);
        else
            (void)report_write_checks(f, s, r, o);
        fclose(f);
        static const char *const names[] = {"JSON", "CSV", "text", "checks"};
        check_text(names[form], buf);
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct catalog *cat = shipped_catalog();
    char err[1024];
    struct setup s;
    struct resolved r;
    struct entries e;
    setup_defaults(&s);
    if ((data[0] & 1) == 0) {
        char *text = malloc(size);
        if (!text)
            return 0;
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        bool ok = setup_load_string(&s, "fuzz.yaml", text, cat, err, sizeof err);
        free(text);
        if (!ok || !setup_resolve(&s, cat, &r, err, sizeof err))
            return 0;
        copy_entries(&r, &e);
    } else {
        /* Setup edits first (resolved after), then catalog edits. */
        const size_t n = (size - 1) / 4;
        const uint8_t *p = data + 1;
        for (size_t i = 0; i < n; i++, p += 4)
            if (p[0] % 8 == 0)
                edit(setup_fields(), &s, p[1], (unsigned)p[2] | (unsigned)p[3] << 8);
        if (!setup_resolve(&s, cat, &r, err, sizeof err))
            return 0;
        copy_entries(&r, &e);
        void *objs[] = {NULL,     &e.accel,   &e.cpu,      &e.storage,
                        &e.intra, &e.cooling, &e.software, &e.host};
        const int kinds[] = {-1,           CATALOG_ACCELERATOR, CATALOG_CPU,      CATALOG_STORAGE,
                             CATALOG_LINK, CATALOG_COOLING,     CATALOG_SOFTWARE, CATALOG_LINK};
        p = data + 1;
        for (size_t i = 0; i < n; i++, p += 4)
            if (p[0] % 8 != 0)
                edit(catalog_fields((enum catalog_kind)kinds[p[0] % 8]), objs[p[0] % 8], p[1],
                     (unsigned)p[2] | (unsigned)p[3] << 8);
    }
    /* A fixed name: the check looks for words like "nan" in the output. */
    snprintf(s.name, sizeof s.name, "fuzz");
    struct model_report o;
    model_eval(&s, &r, &o);
    for (size_t i = 0; i < report_field_count; i++) {
        double v = report_field_number(&report_fields[i], &o);
        if (!isfinite(v)) {
            fprintf(stderr, "fuzz_eval: %s = %g\n", report_fields[i].key, v);
            abort();
        }
    }
    for (int i = 0; i < o.n_suggestions; i++)
        for (size_t j = 0; j < report_suggestion_field_count; j++)
            if (!isfinite(report_field_number(&report_suggestion_fields[j], &o.suggestions[i])))
                abort();
    write_all(&s, &r, &o);
    /* The serving model over the same setup: finite, never negative. */
    struct infer_report io;
    infer_eval(&s, &r, &io);
    for (size_t i = 0; i < infer_report_field_count; i++) {
        if (infer_report_fields[i].type != REPORT_NUM)
            continue; /* a stage is -1 when there is none */
        double v = report_field_number(&infer_report_fields[i], &io);
        if (!isfinite(v) || v < 0 || (v == 0 && signbit(v))) {
            fprintf(stderr, "fuzz_eval: infer %s = %g\n", infer_report_fields[i].key, v);
            abort();
        }
    }
    return 0;
}
