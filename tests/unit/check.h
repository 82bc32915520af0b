/* Minimal checks for the C unit tests: a failed check prints file:line, the
 * expression, the expected and the actual value (and the current context, for
 * checks inside loops), and is counted; check_exit() turns the count into the
 * exit status of main(). No framework: each test is a plain program. */
#ifndef VOLLEY_TEST_CHECK_H
#define VOLLEY_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;
static char check_context[512];

/* Sets a description printed with every failure until the next call;
 * check_ctx(NULL) clears it. */
static inline __attribute__((format(printf, 1, 2))) void check_ctx(const char *fmt, ...)
{
    check_context[0] = '\0';
    if (!fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(check_context, sizeof check_context, fmt, ap);
    va_end(ap);
}

static inline void check_where(const char *file, int line, const char *what)
{
    check_failures++;
    fprintf(stderr, "%s:%d: %s%s%s\n", file, line, check_context[0] ? "[" : "", check_context,
            check_context[0] ? "] " : "");
    fprintf(stderr, "    check failed: %s\n", what);
}

/* Prints bytes with C escapes, so CR, LF and NUL are visible. */
static inline void check_print_bytes(const char *label, const char *s, size_t n)
{
    fprintf(stderr, "    %s: ", label);
    if (!s) {
        fputs("NULL\n", stderr);
        return;
    }
    fputc('"', stderr);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\r')
            fputs("\\r", stderr);
        else if (ch == '\n')
            fputs("\\n", stderr);
        else if (ch == '"' || ch == '\\')
            fprintf(stderr, "\\%c", ch);
        else if (ch < 32 || ch >= 127)
            fprintf(stderr, "\\x%02x", ch);
        else
            fputc(ch, stderr);
    }
    fprintf(stderr, "\" (%zu bytes)\n", n);
}

static inline bool check_true(bool ok, const char *what, const char *file, int line)
{
    check_count++;
    if (!ok)
        check_where(file, line, what);
    return ok;
}

static inline bool check_int(long long actual, long long expected, const char *what, const char *file, int line)
{
    check_count++;
    if (actual == expected)
        return true;
    check_where(file, line, what);
    fprintf(stderr, "    expected: %lld\n    actual:   %lld\n", expected, actual);
    return false;
}

static inline bool check_uint(unsigned long long actual, unsigned long long expected, const char *what,
                              const char *file, int line)
{
    check_count++;
    if (actual == expected)
        return true;
    check_where(file, line, what);
    fprintf(stderr, "    expected: %llu\n    actual:   %llu\n", expected, actual);
    return false;
}

static inline bool check_mem(const char *actual, size_t alen, const char *expected, size_t elen, const char *what,
                             const char *file, int line)
{
    check_count++;
    if (actual && expected && alen == elen && memcmp(actual, expected, elen) == 0)
        return true;
    if (!actual && !expected)
        return true;
    check_where(file, line, what);
    check_print_bytes("expected", expected, elen);
    check_print_bytes("actual  ", actual, alen);
    return false;
}

static inline bool check_str(const char *actual, const char *expected, const char *what, const char *file, int line)
{
    return check_mem(actual, actual ? strlen(actual) : 0, expected, expected ? strlen(expected) : 0, what, file,
                     line);
}

static inline bool check_contains(const char *haystack, const char *needle, const char *what, const char *file,
                                  int line)
{
    check_count++;
    if (haystack && strstr(haystack, needle))
        return true;
    check_where(file, line, what);
    check_print_bytes("expected to contain", needle, strlen(needle));
    check_print_bytes("actual             ", haystack, haystack ? strlen(haystack) : 0);
    return false;
}

#define CHECK(cond) check_true((cond), #cond, __FILE__, __LINE__)
#define CHECK_INT(actual, expected) \
    check_int((long long)(actual), (long long)(expected), #actual " == " #expected, __FILE__, __LINE__)
#define CHECK_UINT(actual, expected) \
    check_uint((unsigned long long)(actual), (unsigned long long)(expected), #actual " == " #expected, __FILE__, \
               __LINE__)
#define CHECK_STR(actual, expected) check_str((actual), (expected), #actual " == " #expected, __FILE__, __LINE__)
#define CHECK_MEM(actual, alen, expected, elen) \
    check_mem((actual), (alen), (expected), (elen), #actual " == " #expected, __FILE__, __LINE__)
#define CHECK_CONTAINS(haystack, needle) \
    check_contains((haystack), (needle), #haystack " contains " #needle, __FILE__, __LINE__)

/* The exit status for main(): 0 when every check passed. */
static inline int check_exit(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
        return 1;
    }
    printf("%s: ok (%d checks)\n", name, check_count);
    return 0;
}

#endif
