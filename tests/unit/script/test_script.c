/* The Lua bridge: embedded modules load with require, scripts load from a
 * path, hooks resolve in both styles, and every error becomes one line that
 * names the file, the line and the hook. */
#include "../check.h"
#include "script.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/volley-test-script.XXXXXX";

/* Writes a script file and returns its path (static buffer). */
static const char *write_script(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loads text as NAME; returns the script or NULL with err. */
static struct script *load(const char *name, const char *text, char *err, size_t errlen)
{
    struct script *s = script_new(err, errlen);
    if (!CHECK(s != NULL))
        return NULL;
    if (script_load(s, write_script(name, text), err, errlen) < 0) {
        script_free(s);
        return NULL;
    }
    return s;
}

static void test_wrk_style(void)
{
    char err[512] = "", out[256];
    check_ctx("wrk style");
    struct script *s = load("w.lua",
                            "local wrk = require('wrk')\n"
                            "function request() return wrk.format('GET', '/x') end\n"
                            "function response(status) if status == 'boom' then local t = nil; return t.x end end\n",
                            err, sizeof err);
    if (!CHECK(s != NULL))
        return;
    CHECK(!script_is_scenario(s));
    CHECK(script_has(s, SCRIPT_REQUEST));
    CHECK(script_has(s, SCRIPT_RESPONSE));
    CHECK(!script_has(s, SCRIPT_INIT));
    CHECK_INT(script_call_strings(s, SCRIPT_REQUEST, NULL, 0, out, sizeof out, err, sizeof err), 0);
    CHECK_STR(out, "GET /x HTTP/1.1\r\n\r\n");
    const char *boom[] = {"boom"};
    CHECK_INT(script_call_strings(s, SCRIPT_RESPONSE, boom, 1, out, sizeof out, err, sizeof err), -1);
    CHECK_CONTAINS(err, "w.lua:3: in response(): attempt to index local 't' (a nil value)");
    CHECK_INT(script_call_strings(s, SCRIPT_INIT, NULL, 0, out, sizeof out, err, sizeof err), 1);
    script_free(s);
}

static void test_scenario_style(void)
{
    char err[512] = "", out[256];
    check_ctx("scenario style");
    struct script *s = load("s.lua",
                            "local s = {}\n"
                            "function s.request(id) return 'GET /items/' .. id .. ' HTTP/1.1\\r\\n\\r\\n' end\n"
                            "function s.delay() return {} end\n"
                            "return s\n",
                            err, sizeof err);
    if (!CHECK(s != NULL))
        return;
    CHECK(script_is_scenario(s));
    const char *id[] = {"42"};
    CHECK_INT(script_call_strings(s, SCRIPT_REQUEST, id, 1, out, sizeof out, err, sizeof err), 0);
    CHECK_STR(out, "GET /items/42 HTTP/1.1\r\n\r\n");
    CHECK_INT(script_call_strings(s, SCRIPT_DELAY, NULL, 0, out, sizeof out, err, sizeof err), -1);
    CHECK_CONTAINS(err, "in delay(): returned a table (a string or nil expected)");
    script_free(s);
}

static void test_load_errors(void)
{
    char err[512] = "";
    check_ctx("load errors");
    CHECK(load("syntax.lua", "function request(\n", err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "syntax.lua:2:");
    CHECK(strchr(err, '\n') == NULL);
    CHECK(load("top.lua", "local x = nil\nx.y = 1\n", err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "top.lua:2: attempt to index local 'x' (a nil value)");
    CHECK(load("hook.lua", "request = 5\n", err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "request is a number, not a function");
    CHECK(load("obj.lua", "error({})\n", err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "(error object is a table value)");
    struct script *s = script_new(err, sizeof err);
    CHECK_INT(script_load(s, "/nonexistent/x.lua", err, sizeof err), -1);
    CHECK_STR(err, "-s /nonexistent/x.lua: No such file or directory");
    CHECK_INT(script_load(s, "nosuchscript", err, sizeof err), -1);
    CHECK_STR(err, "-s nosuchscript: no such bundled script");
    CHECK_INT(script_load(s, "examples.logn", err, sizeof err), -1);
    CHECK_STR(err, "-s examples.logn: no such bundled script (did you mean \"examples.login\"?)");
    script_free(s);
}

/* A scenario table holds hooks only: another key is -2 (a bad script, not
 * a failing one), naming the key and the nearest hook. */
static void test_unknown_hooks(void)
{
    char err[512];
    struct script *s = script_new(err, sizeof err);
    const char *path = write_script("typo.lua", "local s = {}\nfunction s.respnse(conn, res) end\nreturn s\n");
    CHECK_INT(script_load(s, path, err, sizeof err), -2);
    char want[600];
    snprintf(want, sizeof want, "%s: unknown hook \"respnse\" in the scenario table (did you mean \"response\"?)", path);
    CHECK_STR(err, want);
    script_free(s);

    s = script_new(err, sizeof err);
    path = write_script("helper.lua", "return { request = function() end, helper = function() end }\n");
    CHECK_INT(script_load(s, path, err, sizeof err), -2);
    CHECK_CONTAINS(err, "unknown hook \"helper\" in the scenario table (the hooks are options, setup, init,");
    script_free(s);

    s = script_new(err, sizeof err);
    path = write_script("arr.lua", "return { function() end }\n");
    CHECK_INT(script_load(s, path, err, sizeof err), -2);
    CHECK_CONTAINS(err, "a number key in the scenario table");
    script_free(s);

    /* wrk style is not checked: its globals are its own. */
    s = script_new(err, sizeof err);
    path = write_script("wrkglobals.lua", "function respnse() end\nhelper = 1\n");
    CHECK_INT(script_load(s, path, err, sizeof err), 0);
    script_free(s);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_wrk_style();
    test_scenario_style();
    test_load_errors();
    test_unknown_hooks();
    check_ctx(NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_exit("test_script");
}
