/* hfconfig_json: the syntax of JSON (RFC 8259) checked on a config's text
 * before libyaml builds its tree. libyaml reads every JSON document, but
 * also YAML that is no JSON (a comma before '}', single quotes, comments,
 * bare words, tabs of indentation): a config.json with those is refused
 * here, with its place, as JSON tools would refuse it. Nesting is bounded
 * as the YAML reader bounds it. */
#include <stdio.h>
#include <string.h>

#include "hfconfig_internal.h"

enum { JSON_MAX_DEPTH = 64 };

struct scan {
    const char *start, *at, *end;
    const char *file;
    char *err;
    size_t err_len;
};

static bool fail(struct scan *sc, const char *what)
{
    int line = 1, col = 1;
    for (const char *p = sc->start; p < sc->at; p++) {
        if (*p == '\n')
            line++, col = 1;
        else if (((unsigned char)*p & 0xc0) != 0x80)
            col++;
    }
    char found[64] = "the end of the text";
    if (sc->at < sc->end) {
        char piece[8];
        size_t n = (size_t)(sc->end - sc->at) < 4 ? (size_t)(sc->end - sc->at) : 4;
        memcpy(piece, sc->at, n);
        piece[n] = '\0';
        char shown[48];
        hf_escape(shown, sizeof shown, piece, 4);
        snprintf(found, sizeof found, "'%s'", shown);
    }
    snprintf(sc->err, sc->err_len, "%s:%d:%d: JSON syntax error: %s, found %s", sc->file, line, col,
             what, found);
    return false;
}

static void skip_space(struct scan *sc)
{
    while (sc->at < sc->end &&
           (*sc->at == ' ' || *sc->at == '\t' || *sc->at == '\n' || *sc->at == '\r'))
        sc->at++;
}

static bool is_digit(const struct scan *sc)
{
    return sc->at < sc->end && *sc->at >= '0' && *sc->at <= '9';
}

static bool digits(struct scan *sc)
{
    if (!is_digit(sc))
        return fail(sc, "expected a digit");
    while (is_digit(sc))
        sc->at++;
    return true;
}

static bool number(struct scan *sc)
{
    if (*sc->at == '-')
        sc->at++;
    if (sc->at < sc->end && *sc->at == '0')
        sc->at++;
    else if (!digits(sc))
        return false;
    if (sc->at < sc->end && *sc->at == '.') {
        sc->at++;
        if (!digits(sc))
            return false;
    }
    if (sc->at < sc->end && (*sc->at == 'e' || *sc->at == 'E')) {
        sc->at++;
        if (sc->at < sc->end && (*sc->at == '+' || *sc->at == '-'))
            sc->at++;
        if (!digits(sc))
            return false;
    }
    return true;
}

static bool hex4(struct scan *sc)
{
    for (int i = 0; i < 4; i++, sc->at++)
        if (sc->at >= sc->end || !strchr("0123456789abcdefABCDEF", *sc->at) || !*sc->at)
            return fail(sc, "expected four hexadecimal digits after \\u");
    return true;
}

static bool string(struct scan *sc)
{
    sc->at++; /* the opening quote */
    while (sc->at < sc->end && *sc->at != '"') {
        unsigned char c = (unsigned char)*sc->at;
        if (c < 0x20)
            return fail(sc, "control characters in strings are written as escapes");
        if (c != '\\') {
            sc->at++;
            continue;
        }
        sc->at++;
        if (sc->at < sc->end && *sc->at == 'u') {
            sc->at++;
            if (!hex4(sc))
                return false;
        } else if (sc->at < sc->end && *sc->at && strchr("\"\\/bfnrt", *sc->at)) {
            sc->at++;
        } else {
            return fail(sc, "unknown escape in a string");
        }
    }
    if (sc->at >= sc->end)
        return fail(sc, "a string is not closed");
    sc->at++;
    return true;
}

static bool value(struct scan *sc, int depth);

/* The members of an object or the items of an array, after the bracket. */
static bool members(struct scan *sc, int depth, char close)
{
    skip_space(sc);
    if (sc->at < sc->end && *sc->at == close) {
        sc->at++;
        return true;
    }
    for (;;) {
        skip_space(sc);
        if (close == '}') {
            if (sc->at >= sc->end || *sc->at != '"')
                return fail(sc, "expected a key in double quotes");
            if (!string(sc))
                return false;
            skip_space(sc);
            if (sc->at >= sc->end || *sc->at != ':')
                return fail(sc, "expected ':' after the key");
            sc->at++;
        }
        if (!value(sc, depth + 1))
            return false;
        skip_space(sc);
        if (sc->at < sc->end && *sc->at == close) {
            sc->at++;
            return true;
        }
        if (sc->at >= sc->end || *sc->at != ',')
            return fail(sc, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        sc->at++;
        skip_space(sc);
        if (sc->at < sc->end && *sc->at == close)
            return fail(sc, "a comma before the closing bracket is not JSON");
    }
}

static bool literal(struct scan *sc, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(sc->end - sc->at) < n || memcmp(sc->at, word, n) != 0)
        return fail(sc, "expected a JSON value (strings are written in double quotes)");
    sc->at += n;
    return true;
}

static bool value(struct scan *sc, int depth)
{
    skip_space(sc);
    if (depth > JSON_MAX_DEPTH)
        return fail(sc, "nested deeper than 64 levels");
    if (sc->at >= sc->end)
        return fail(sc, "expected a JSON value");
    switch (*sc->at) {
    case '{':
    case '[':
        sc->at++;
        return members(sc, depth, sc->at[-1] == '{' ? '}' : ']');
    case '"':
        return string(sc);
    case 't':
        return literal(sc, "true");
    case 'f':
        return literal(sc, "false");
    case 'n':
        return literal(sc, "null");
    default:
        if (*sc->at == '-' || (*sc->at >= '0' && *sc->at <= '9'))
            return number(sc);
        return fail(sc, "expected a JSON value (strings are written in double quotes)");
    }
}

bool hf_json_syntax(const char *file, const char *text, size_t len, char *err, size_t err_len)
{
    struct scan sc = {text, text, text + len, file, err, err_len};
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        sc.at += 3; /* a byte-order mark, which editors on Windows write */
    if (!value(&sc, 0))
        return false;
    skip_space(&sc);
    return sc.at == sc.end || fail(&sc, "text after the JSON value");
}
