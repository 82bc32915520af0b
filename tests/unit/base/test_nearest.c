/* Unit test for nearest.c: the Damerau-Levenshtein distance (a swap of
 * neighbours is one edit), the typo limits by length, ties, long strings,
 * and the space-separated list form Lua uses. */
#include "nearest.h"

#include "../check.h"

#include <string.h>

static const char *const hooks[] = {"options", "setup", "init", "connect", "request", "delay", "response", "done"};
#define NHOOKS (sizeof hooks / sizeof hooks[0])

static void near(const char *word, const char *expected)
{
    check_ctx("nearest to \"%s\"", word);
    const char *got = nearest_name(word, hooks, NHOOKS);
    CHECK_STR(got ? got : "(none)", expected ? expected : "(none)");
    char buf[32];
    CHECK_STR(nearest_in_list(word, "options setup init connect request delay response done", buf, sizeof buf),
              expected ? expected : "");
    check_ctx(NULL);
}

int main(void)
{
    CHECK_INT(nearest_distance("", ""), 0);
    CHECK_INT(nearest_distance("abc", ""), 3);
    CHECK_INT(nearest_distance("", "abc"), 3);
    CHECK_INT(nearest_distance("response", "response"), 0);
    CHECK_INT(nearest_distance("respnse", "response"), 1);   /* a deletion */
    CHECK_INT(nearest_distance("respnose", "response"), 1);  /* a swap: 2 for Levenshtein */
    CHECK_INT(nearest_distance("conections", "connections"), 1);
    CHECK_INT(nearest_distance("kitten", "sitting"), 3);
    CHECK_INT(nearest_distance("ca", "abc"), 3);             /* OSA: no edit of a swapped pair */
    CHECK_INT(nearest_distance("Request", "request"), 1);    /* case counts */
    char big[100];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK_INT(nearest_distance(big, "a"), 64);

    near("respnse", "response");
    near("repsonse", "response");
    near("requst", "request");
    near("Request", "request");
    near("int", "init");          /* 3 letters: one edit */
    near("don", "done");
    near("connnect", "connect");
    near("optoins", "options");
    near("xyz", NULL);            /* nothing close */
    near("dne", "done");          /* 3 letters, one edit: d-n-e vs done is 1 (insert o) */
    near("setpu", "setup");
    near("helper", NULL);         /* a helper, not a hook */
    near("data", NULL);
    near("", NULL);

    char small[4];
    CHECK_STR(nearest_in_list("respnse", "response", small, sizeof small), "res"); /* cut to len */
    CHECK_STR(nearest_in_list("pth", "  method path  headers body name", big, sizeof big), "path");
    CHECK_STR(nearest_in_list("pth", "", big, sizeof big), "");
    return check_exit("test_nearest");
}
