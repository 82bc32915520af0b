/* options(args): a scenario script owning its command line. The table it
 * returns becomes command-line words that main.c parses after the user's,
 * so every value gets the same checks and messages as the flag it stands
 * for. */
#include "script_internal.h"

#include "nearest.h"
#include "quote.h"
#include "xalloc.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The options() keys and the command-line options they stand for. */
static const struct {
    const char *key;
    const char *flag;
} option_keys[] = {
    {"connections", "-c"}, {"threads", "-t"}, {"requests", "-n"}, {"duration", "-d"},
    {"timeout", "--timeout"}, {"method", "-m"}, {"body", "-b"}, {"rate", "-R"}, {"spin", "--spin"},
    {"arrivals", "--arrivals"}, {"max_rps", "--max-rps"},
    {"tls_min", "--tls-min"}, {"tls_max", "--tls-max"}, {"ciphers", "--ciphers"},
    {"ciphersuites", "--ciphersuites"}, {"groups", "--groups"}, {"sni", "--sni"},
    {"cacert", "--cacert"}, {"cert", "--cert"}, {"key", "--key"},
    {"streams", "--streams"}, {"h2_window", "--h2-window"}, {"stages", "--stages"},
    {"heartbeat", "--heartbeat"}, {"seed", "--seed"}, {"allow_host", "--allow-host"},
    {"proxy", "--proxy"}, {"noproxy", "--noproxy"}, {"unix_socket", "--unix-socket"},
};

/* The keys with a form of their own (below). */
static const char *const other_keys[] = {"url", "http2", "http_version", "thresholds", "fail_if", "headers"};

/* The boolean keys: the word added when the value is `when`. */
static const struct {
    const char *key;
    const char *word;
    bool when;
} flag_keys[] = {
    {"quiet", "-q", true},           {"samples", "--samples", true},     {"heads", "--heads", true},
    {"one_first", "--one-first", true}, {"probe", "--no-probe", false}, {"keepalive", "--no-keepalive", false},
    {"verify", "--verify", true},       {"sni", "--no-sni", false},          {"tls_resume", "--tls-resume=off", false},
    {"h2c", "--h2c", true},
};

struct words {
    char **w;
    int n;
};

static void add_word(struct words *ws, const char *w)
{
    ws->w = xrealloc(ws->w, (size_t)(ws->n + 1) * sizeof *ws->w);
    ws->w[ws->n++] = xstrdup(w);
}

/* The option value at the top of the stack as a word ("10", "1.5"). */
static const char *option_word(lua_State *L, char *buf, size_t len)
{
    if (lua_type(L, -1) == LUA_TNUMBER) {
        double v = lua_tonumber(L, -1);
        if (v == floor(v) && fabs(v) < 0x1p53)
            snprintf(buf, len, "%.0f", v); /* every digit of a seed or a count */
        else
            snprintf(buf, len, "%.14g", v); /* 1.1, not 1.1000000000000001 */
        return buf;
    }
    return lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
}

/* thresholds = {"p99 < 50ms", ...} (k6's word: each must hold) or
 * fail_if = {"p99 > 50ms", ...} at the top of the stack: one option each
 * (--threshold or --fail-if), in order. Returns NULL, or what was expected
 * instead. */
static const char *threshold_words(lua_State *L, struct words *ws, const char *option)
{
    if (lua_type(L, -1) != LUA_TTABLE)
        return "a list of strings";
    size_t n = lua_objlen(L, -1), keys = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {                       /* ... list key value */
        keys++;
        lua_pop(L, 1);
    }
    if (keys != n)
        return "a list of strings";
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (int)i);                 /* ... list expr */
        bool ok = lua_type(L, -1) == LUA_TSTRING;
        if (ok) {
            add_word(ws, option);
            add_word(ws, lua_tostring(L, -1));
        }
        lua_pop(L, 1);
        if (!ok)
            return "a list of strings";
    }
    return NULL;
}

/* err for an options() key volley does not know, with the nearest one. */
static void unknown_key(const struct script *s, const char *key, char *err, size_t errlen)
{
    const char *names[sizeof option_keys / sizeof option_keys[0] + sizeof flag_keys / sizeof flag_keys[0] +
                      sizeof other_keys / sizeof other_keys[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof option_keys / sizeof option_keys[0]; i++)
        names[n++] = option_keys[i].key;
    for (size_t i = 0; i < sizeof flag_keys / sizeof flag_keys[0]; i++)
        names[n++] = flag_keys[i].key;
    for (size_t i = 0; i < sizeof other_keys / sizeof other_keys[0]; i++)
        names[n++] = other_keys[i];
    const char *near = nearest_name(key, names, n);
    char q[96];
    snprintf(err, errlen, "%s: options(): unknown option \"%s\"%s%s%s", s->name, quote_printable(q, sizeof q, key),
             near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
}

/* Turns the options table at the top of the stack into words; the URL
 * last. Returns 0, or -2 with err for a key or a value volley does not
 * take (a bad command line, as a bad value of the option would be). */
static int option_words(struct script *s, struct words *ws, char *err, size_t errlen)
{
    lua_State *L = s->L;
    char buf[64];
    const char *url = NULL;
    lua_pushnil(L);
    while (lua_next(L, -2)) {                       /* opts key value */
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "(not a string)";
        const char *flag = NULL;
        for (size_t i = 0; i < sizeof option_keys / sizeof option_keys[0]; i++)
            if (strcmp(key, option_keys[i].key) == 0)
                flag = option_keys[i].flag;
        int boolean = -1;
        for (size_t i = 0; i < sizeof flag_keys / sizeof flag_keys[0]; i++)
            if (strcmp(key, flag_keys[i].key) == 0)
                boolean = (int)i;
        const char *bad = NULL;
        /* sni is both: a name (--sni NAME) or false (--no-sni). */
        if (boolean >= 0 && (lua_type(L, -1) == LUA_TBOOLEAN || !flag)) {
            if (lua_type(L, -1) != LUA_TBOOLEAN)
                bad = "a boolean";
            else if (lua_toboolean(L, -1) == flag_keys[boolean].when)
                add_word(ws, flag_keys[boolean].word);
        } else if (flag) {
            const char *w = option_word(L, buf, sizeof buf);
            if (!w)
                bad = "a string or a number";
            else {
                add_word(ws, flag);
                add_word(ws, w);
            }
        } else if (strcmp(key, "url") == 0) {
            if (lua_type(L, -1) != LUA_TSTRING)
                bad = "a string";
            else
                url = lua_tostring(L, -1); /* stays referenced by the table */
        } else if (strcmp(key, "http2") == 0) {
            /* true: --http2; "strict": --http2=strict */
            if (lua_type(L, -1) == LUA_TBOOLEAN) {
                if (lua_toboolean(L, -1))
                    add_word(ws, "--http2");
            } else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "strict") == 0) {
                add_word(ws, "--http2=strict");
            } else {
                bad = "a boolean or \"strict\"";
            }
        } else if (strcmp(key, "http_version") == 0) {
            const char *w = option_word(L, buf, sizeof buf);
            if (!w || (strcmp(w, "1.0") != 0 && strcmp(w, "1") != 0 && strcmp(w, "1.1") != 0))
                bad = "\"1.0\" or \"1.1\"";
            else if (strcmp(w, "1.1") != 0)
                add_word(ws, "--http1.0");
        } else if (strcmp(key, "thresholds") == 0) {
            bad = threshold_words(L, ws, "--threshold");
        } else if (strcmp(key, "fail_if") == 0) {
            bad = threshold_words(L, ws, "--fail-if");
        } else if (strcmp(key, "headers") == 0) {
            if (lua_type(L, -1) != LUA_TTABLE) {
                bad = "a table";
            } else {
                lua_pushnil(L);
                while (lua_next(L, -2)) {           /* ... headers name value */
                    char line[8192];
                    const char *value = option_word(L, buf, sizeof buf);
                    line[0] = '\0';
                    if (lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TSTRING)
                        snprintf(line, sizeof line, "%s", value);
                    else if (lua_type(L, -2) == LUA_TSTRING && value)
                        snprintf(line, sizeof line, "%s: %s", lua_tostring(L, -2), value);
                    lua_pop(L, 1);
                    if (!line[0]) {
                        lua_pop(L, 1);              /* ... headers */
                        bad = "name = value pairs or \"Name: value\" lines";
                        break;
                    }
                    add_word(ws, "-H");
                    add_word(ws, line);
                }
            }
        } else {
            unknown_key(s, key, err, errlen);
            lua_pop(L, 2);
            return -2;
        }
        if (bad) {
            lua_pop(L, 2);
            snprintf(err, errlen, "%s: options(): %s: %s expected", s->name, key, bad);
            return -2;
        }
        lua_pop(L, 1);
    }
    if (url)
        add_word(ws, url);
    return 0;
}

/* Several scenarios: each one's thresholds and fail_if, labelled with its
 * name, as words after options()'s. Returns 0, or -1 with err. */
static int scenario_words(struct script *s, struct words *ws, char *err, size_t errlen)
{
    lua_State *L = s->L;
    if (!s->nscenarios)
        return 0;
    script_push_bridge(s, "scenario_threshold_words");
    if (script_pcall(s, 0, 1, NULL, err, errlen) < 0)
        return -1;
    size_t n = lua_objlen(L, -1);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (int)i);
        add_word(ws, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

int script_options(struct script *s, char *const *args, int nargs, char ***words, int *nwords, bool *has_url,
                   char *err, size_t errlen)
{
    lua_State *L = s->L;
    *words = NULL;
    *nwords = 0;
    *has_url = false;
    if (!script_has(s, SCRIPT_OPTIONS)) {
        struct words ws = {NULL, 0};
        int rc = scenario_words(s, &ws, err, errlen);
        *words = ws.w;
        *nwords = ws.n;
        return rc;
    }
    script_set_phase(s, "options");
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_OPTIONS]);
    lua_createtable(L, nargs, 0);
    for (int i = 0; i < nargs; i++) {
        lua_pushstring(L, args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    if (script_pcall(s, 1, 1, "options", err, errlen) < 0)
        return -1;
    int rc = 0;
    if (lua_istable(L, -1)) {
        struct words ws = {NULL, 0};
        lua_getfield(L, -1, "url");
        *has_url = lua_type(L, -1) == LUA_TSTRING;
        lua_pop(L, 1);
        rc = option_words(s, &ws, err, errlen);
        if (rc == 0)
            rc = scenario_words(s, &ws, err, errlen);
        *words = ws.w;
        *nwords = ws.n;
    } else if (!lua_isnil(L, -1)) {
        snprintf(err, errlen, "%s: in options(): returned a %s (a table of options or nil expected)", s->name,
                 luaL_typename(L, -1));
        rc = -1;
    } else {
        struct words ws = {NULL, 0};
        rc = scenario_words(s, &ws, err, errlen);
        *words = ws.w;
        *nwords = ws.n;
    }
    lua_pop(L, 1);
    return rc;
}
