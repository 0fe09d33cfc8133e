/* plan_partial: the partial results of `mlviz plan --shard` and their reader. */
#include "plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "plan_internal.h"

static const char partial_magic[] = "mlviz-plan-partial 1";
enum { SETUP_YAML_MAX = 64 << 10 };

bool plan_write_partial(FILE *out, const struct plan_space *sp, const struct plan_spec *spec,
                        const struct plan_result *r)
{
    char *yaml = malloc(SETUP_YAML_MAX);
    if (!yaml)
        return false;
    setup_write_yaml(&sp->base, yaml, SETUP_YAML_MAX);
    fprintf(out, "%s\n", partial_magic);
    fprintf(out, "shard %d %d\n", spec->shard_index, spec->shard_count);
    fprintf(out, "objective %s\n", plan_figure_names[spec->objective]);
    fprintf(out, "top %d\n", spec->top);
    for (int i = 0; i < spec->n_vary; i++)
        fprintf(out, "vary %s\n", spec->vary[i]);
    for (int i = 0; i < spec->n_maxes; i++)
        fprintf(out, "max %s\n", spec->maxes[i]);
    const struct plan_counts *c = &r->counts;
    fprintf(out, "counts %llu %llu %llu %llu %llu %llu %llu\n", (unsigned long long)c->candidates,
            (unsigned long long)c->invalid, (unsigned long long)c->memory_cut,
            (unsigned long long)c->constraint_cut, (unsigned long long)c->evaluated,
            (unsigned long long)c->runnable, (unsigned long long)c->better_than_base);
    fprintf(out, "setup %zu\n%s", strlen(yaml), yaml);
    free(yaml);
    fprintf(out, "top-entries %d\n", r->n_top);
    for (int i = 0; i < r->n_top; i++)
        fprintf(out, "%llu\n", (unsigned long long)r->top[i].index);
    fprintf(out, "front-entries %zu\n", r->n_front);
    for (size_t i = 0; i < r->n_front; i++)
        fprintf(out, "%llu\n", (unsigned long long)r->front[i].index);
    fprintf(out, "end\n");
    return !ferror(out);
}

void plan_partial_free(struct plan_partial *p)
{
    free(p->setup_yaml);
    free(p->top);
    free(p->front);
    memset(p, 0, sizeof *p);
}

/* A line reader over a whole file in memory. */
struct lines {
    char *text;
    size_t len, pos;
    int line;
};

static char *next_line(struct lines *l)
{
    if (l->pos >= l->len)
        return NULL;
    char *start = l->text + l->pos;
    char *nl = memchr(start, '\n', l->len - l->pos);
    if (!nl)
        return NULL; /* every line ends with a newline */
    *nl = '\0';
    l->pos = (size_t)(nl - l->text) + 1;
    l->line++;
    return start;
}

static bool read_u64(const char *text, uint64_t *out)
{
    if (!*text || strlen(text) > 20)
        return false;
    for (const char *c = text; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno)
        return false;
    *out = v;
    return true;
}

static bool read_indices(struct lines *l, const char *word, uint64_t **out, size_t *n,
                         const char *path, char *err, size_t err_len)
{
    char *line = next_line(l);
    size_t wl = strlen(word);
    uint64_t count;
    if (!line || strncmp(line, word, wl) != 0 || line[wl] != ' ' ||
        !read_u64(line + wl + 1, &count) || count > (1u << 20)) {
        snprintf(err, err_len, "%s:%d: expected '%s N'", path, l->line + (line ? 0 : 1), word);
        return false;
    }
    *out = calloc(count ? count : 1, sizeof **out);
    if (!*out) {
        snprintf(err, err_len, "%s: out of memory", path);
        return false;
    }
    for (uint64_t i = 0; i < count; i++) {
        line = next_line(l);
        if (!line || !read_u64(line, &(*out)[i])) {
            snprintf(err, err_len, "%s:%d: expected a candidate number", path,
                     l->line + (line ? 0 : 1));
            return false;
        }
    }
    *n = (size_t)count;
    return true;
}

bool plan_read_partial(const char *path, struct plan_partial *p, char *err, size_t err_len)
{
    char *text;
    size_t len;
    memset(p, 0, sizeof *p);
    if (!infile_read(path, &text, &len, err, err_len))
        return false;
    bool ok = plan_parse_partial(path, text, len, p, err, err_len);
    free(text);
    return ok;
}

/* One line before the setup: -1 bad (msg says why), 1 the setup ended the
 * header, 0 go on. */
static int header_line(struct lines *l, char *line, struct plan_partial *p, char *msg,
                       size_t msg_len)
{
    if (strncmp(line, "objective ", 10) == 0) {
        if (!plan_spec_objective(&p->spec, line + 10, msg, msg_len))
            return -1;
    } else if (strncmp(line, "top ", 4) == 0) {
        uint64_t t;
        if (!read_u64(line + 4, &t) || t < 1 || t > PLAN_TOP_MAX) {
            snprintf(msg, msg_len, "top must be 1..%d", PLAN_TOP_MAX);
            return -1;
        }
        p->spec.top = (int)t;
    } else if (strncmp(line, "vary ", 5) == 0) {
        if (!plan_spec_vary(&p->spec, line + 5, msg, msg_len))
            return -1;
    } else if (strncmp(line, "max ", 4) == 0) {
        if (!plan_spec_max(&p->spec, line + 4, msg, msg_len))
            return -1;
    } else if (strncmp(line, "counts ", 7) == 0) {
        uint64_t v[7];
        char *save = NULL;
        int k = 0;
        for (char *tok = strtok_r(line + 7, " ", &save); tok && k < 8;
             tok = strtok_r(NULL, " ", &save), k++)
            if (k >= 7 || !read_u64(tok, &v[k]))
                k = 9;
        if (k != 7) {
            snprintf(msg, msg_len, "counts takes 7 whole numbers");
            return -1;
        }
        p->counts = (struct plan_counts){.candidates = v[0],
                                         .invalid = v[1],
                                         .memory_cut = v[2],
                                         .constraint_cut = v[3],
                                         .evaluated = v[4],
                                         .runnable = v[5],
                                         .better_than_base = v[6]};
    } else if (strncmp(line, "setup ", 6) == 0) {
        uint64_t n;
        if (!read_u64(line + 6, &n) || n > SETUP_YAML_MAX || n > l->len - l->pos) {
            snprintf(msg, msg_len, "setup length out of range");
            return -1;
        }
        p->setup_yaml = malloc((size_t)n + 1);
        if (!p->setup_yaml) {
            snprintf(msg, msg_len, "out of memory");
            return -1;
        }
        memcpy(p->setup_yaml, l->text + l->pos, (size_t)n);
        p->setup_yaml[n] = '\0';
        for (size_t k = 0; k < n; k++)
            l->line += l->text[l->pos + k] == '\n';
        l->pos += (size_t)n;
        return 1;
    } else {
        snprintf(msg, msg_len, "unknown line '%.60s'", line);
        return -1;
    }
    return 0;
}

bool plan_parse_partial(const char *path, char *text, size_t len, struct plan_partial *p, char *err,
                        size_t err_len)
{
    memset(p, 0, sizeof *p);
    plan_spec_init(&p->spec);
    struct lines l = {text, len, 0, 0};
    bool ok = false;
    char msg[600];
    if (memchr(l.text, '\0', l.len)) {
        snprintf(err, err_len, "%s: binary data: not a partial result of mlviz plan --shard", path);
        goto done;
    }
    char *line = next_line(&l);
    if (!line || strcmp(line, partial_magic) != 0) {
        snprintf(err, err_len, "%s:1: not a partial result of mlviz plan --shard (expected '%s')",
                 path, partial_magic);
        goto done;
    }
    int si, sn;
    char extra;
    line = next_line(&l);
    if (!line || sscanf(line, "shard %d %d %c", &si, &sn, &extra) != 2 || sn < 1 || sn > 1000000 ||
        si < 0 || si >= sn) {
        snprintf(err, err_len, "%s:%d: expected 'shard I N' with 0 <= I < N", path, l.line);
        goto done;
    }
    p->shard_index = si;
    p->shard_count = sn;
    p->spec.shard_index = si;
    p->spec.shard_count = sn;
    for (;;) {
        line = next_line(&l);
        if (!line) {
            snprintf(err, err_len, "%s:%d: unexpected end of file", path, l.line + 1);
            goto done;
        }
        int k = header_line(&l, line, p, msg, sizeof msg);
        if (k < 0)
            goto bad_line;
        if (k > 0)
            break;
    }
    if (!read_indices(&l, "top-entries", &p->top, &p->n_top, path, err, err_len) ||
        !read_indices(&l, "front-entries", &p->front, &p->n_front, path, err, err_len))
        goto done;
    line = next_line(&l);
    if (!line || strcmp(line, "end") != 0 || l.pos != l.len) {
        snprintf(err, err_len, "%s:%d: expected 'end' as the last line", path, l.line);
        goto done;
    }
    ok = true;
    goto done;
bad_line:
    snprintf(err, err_len, "%s:%d: %s", path, l.line, msg);
done:
    if (!ok)
        plan_partial_free(p);
    return ok;
}
