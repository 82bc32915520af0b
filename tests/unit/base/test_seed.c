/* Seeds (seed.c) and LuaJIT's math.random under them: each state's seed is
 * a whole number below 2^50, different for every state of a run, the same
 * for the same run seed; and LuaJIT, seeded with them, draws a different
 * sequence in every state and the same one again for the same seed. */
#include "../check.h"
#include "script.h"
#include "seed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/volley-test-seed.XXXXXX";
static char path[512];

/* The first draws of a state seeded with seed, as one string. */
static void draws(double seed, char *out, size_t len)
{
    char err[512];
    struct script *s = script_new(err, sizeof err);
    out[0] = '\0';
    if (!CHECK(s != NULL))
        return;
    if (CHECK_INT(script_seed(s, seed, err, sizeof err), 0) && CHECK_INT(script_load(s, path, err, sizeof err), 0))
        CHECK_INT(script_call_strings(s, SCRIPT_REQUEST, NULL, 0, out, len, err, sizeof err), 0);
    script_free(s);
}

static void test_states(void)
{
    static const uint64_t runs[] = {0, 1, 2, 42, SEED_MAX};
    enum { N = 1025 }; /* the main state and 1024 threads */
    double *all = malloc(sizeof(double) * N * (sizeof runs / sizeof runs[0]));
    size_t n = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        check_ctx("run seed %llu", (unsigned long long)runs[r]);
        for (unsigned k = 0; k < N; k++) {
            double d = seed_state(runs[r], k);
            CHECK(d >= 0 && d < 0x1p50 && d == floor(d));
            CHECK(d == seed_state(runs[r], k));
            all[n++] = d;
        }
    }
    /* Every state of every run above its own seed (a collision across
     * runs is possible in principle, not among these). */
    int same = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            same += all[i] == all[j];
    check_ctx(NULL);
    CHECK_INT(same, 0);
    free(all);
}

static void test_draw(void)
{
    uint64_t a = seed_draw(), b = seed_draw();
    CHECK(a <= SEED_MAX && b <= SEED_MAX);
    CHECK(a != b);
}

static void test_luajit(void)
{
    char a[256], b[256], c[256];
    /* The states of one run draw different sequences; the same seed the
     * same one. */
    char seen[17][256];
    for (unsigned k = 0; k < 17; k++) {
        draws(seed_state(42, k), seen[k], sizeof seen[k]);
        for (unsigned j = 0; j < k; j++)
            CHECK(strcmp(seen[j], seen[k]) != 0);
    }
    draws(seed_state(42, 3), a, sizeof a);
    CHECK_STR(a, seen[3]);
    draws(seed_state(43, 3), b, sizeof b);
    CHECK(strcmp(a, b) != 0);
    /* Neighbouring whole numbers below 2^50 stay apart through LuaJIT's
     * d * pi + e; above 2^53 they cannot (they are one double). */
    draws(0x1p50 - 2, a, sizeof a);
    draws(0x1p50 - 1, b, sizeof b);
    CHECK(strcmp(a, b) != 0);
    draws(1, a, sizeof a);
    draws(2, c, sizeof c);
    CHECK(strcmp(a, c) != 0);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/draw.lua", dir);
    FILE *f = fopen(path, "w");
    fputs("function request()\n"
          "  local t = {}\n"
          "  for i = 1, 4 do t[i] = math.random(1, 2147483647) end\n"
          "  return table.concat(t, \" \")\n"
          "end\n",
          f);
    fclose(f);
    test_states();
    test_draw();
    test_luajit();
    unlink(path);
    rmdir(dir);
    return check_exit("test_seed");
}
