/* `volley help [TOPIC]` and --version (cmd_help.h): what a first-time user
 * asks before anything else. volley ab's usage is the bundled ab script's
 * own text, read from its module, so the two cannot drift apart. */
#include "cmd_help.h"

#include "cmd.h"
#include "cmd_compare.h"
#include "cmd_merge.h"
#include "cmd_report.h"
#include "h2.h"
#include "http.h"
#include "nearest.h"
#include "options.h"
#include "run.h"
#include "script.h"
#include "tls.h"

#include <stdlib.h>
#include <string.h>

/* volley ab's usage: ab's own text (what `volley ab -h` prints on stderr,
 * as ab does), named as volley runs it. */
static int help_ab(void)
{
    char err[512];
    char *usage = script_module_string("volley.ab.args", "USAGE", err, sizeof err);
    if (!usage)
        return cmd_fail("help", 1, "%s", err);
    const char *rest = strncmp(usage, "Usage: ab ", 10) == 0 ? usage + 10 : NULL;
    if (rest)
        printf("Usage: volley ab %s", rest);
    else
        fputs(usage, stdout);
    fputs("\nvolley ab (also installed as volley-ab) takes ApacheBench 2.3's options and prints\n"
          "its report, with its exit statuses, from volley's engine: a script that used ab\n"
          "keeps working (docs/ab.md lists the differences).\n"
          "  volley ab -n 1000 -c 10 http://127.0.0.1:8080/\n",
          stdout);
    free(usage);
    return 0;
}

/* volley llm's usage: the bundled llm script's own text. */
static int help_llm(void)
{
    char err[512];
    char *usage = script_module_string("volley.llm.args", "USAGE", err, sizeof err);
    if (!usage)
        return cmd_fail("help", 1, "%s", err);
    fputs(usage, stdout);
    fputs("  volley llm --base-url http://127.0.0.1:8000 --model m --num-prompts 200\n", stdout);
    free(usage);
    return 0;
}

/* volley convert's usage: the bundled convert module's own text. */
static int help_convert(void)
{
    char err[512];
    char *usage = script_module_string("volley.convert.main", "USAGE", err, sizeof err);
    if (!usage)
        return cmd_fail("help", 1, "%s", err);
    fputs(usage, stdout);
    free(usage);
    return 0;
}

int cmd_help(int argc, char **argv)
{
    static const char *const topics[] = {"ab", "llm", "report", "compare", "merge", "convert"};
    if (argc < 2) {
        fputs(options_usage, stdout);
        return 0;
    }
    const char *topic = argv[1];
    if (argc > 2)
        return cmd_fail("help", 2, "%s: one topic at a time (volley help, volley help ab, llm, report, compare, merge or convert)",
                        argv[2]);
    if (strcmp(topic, "ab") == 0)
        return help_ab();
    if (strcmp(topic, "llm") == 0)
        return help_llm();
    if (strcmp(topic, "convert") == 0)
        return help_convert();
    if (strcmp(topic, "report") == 0 || strcmp(topic, "compare") == 0 || strcmp(topic, "merge") == 0) {
        char *args[] = {(char *)topic, "--help", NULL};
        return topic[0] == 'r' ? cmd_report(2, args) : topic[0] == 'c' ? cmd_compare(2, args) : cmd_merge(2, args);
    }
    const char *near = nearest_name(topic, topics, sizeof topics / sizeof topics[0]);
    if (near)
        return cmd_fail("help", 2, "unknown topic \"%s\" (did you mean \"%s\"?)", topic, near);
    return cmd_fail("help", 2, "unknown topic \"%s\" (volley help, volley help ab, llm, report, compare, merge or convert)", topic);
}

void cmd_help_version(FILE *out)
{
    char buf[128];
    fprintf(out, "volley %s\n", VOLLEY_VERSION);
    fprintf(out, "%s\n", run_library_version(buf, sizeof buf));
    fprintf(out, "%s\n", script_library_version(buf, sizeof buf));
    fprintf(out, "%s\n", http_library_version(buf, sizeof buf));
    fprintf(out, "%s\n", h2_library_version(buf, sizeof buf));
    fprintf(out, "%s\n", tls_library_version());
}
