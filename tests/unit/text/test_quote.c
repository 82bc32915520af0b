/* Unit test for quote.c: what reaches a terminal from untrusted text. ESC,
 * CR, LF, other C0 controls, DEL, C1 controls and bytes outside well-formed
 * UTF-8 come out as escapes; printable ASCII and well-formed UTF-8 as they
 * were; quote_printable truncates with "..."; escaping twice changes
 * nothing; quote_columns counts the characters quote_write writes. */
#include "quote.h"

#include "../check.h"

#include <stdlib.h>

static char *written(const char *src)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    quote_write(f, src);
    fclose(f);
    return out;
}

static void expect(const char *src, const char *want)
{
    char buf[256];
    check_ctx("%s", want);
    CHECK_STR(quote_printable(buf, sizeof buf, src), want);
    char *out = written(src);
    CHECK_STR(out, want);
    CHECK_STR(quote_printable(buf, sizeof buf, want), want); /* idempotent */
    free(out);
    check_ctx(NULL);
}

int main(void)
{
    expect("plain \"text\" \\ ok", "plain \"text\" \\ ok");
    expect("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
    expect("a\r\nFailed 0:\tb", "a\\r\\nFailed 0:\\tb");
    expect("\x01\x07\x08\x1f\x7f", "\\x01\\x07\\x08\\x1f\\x7f");
    expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    /* U+009B is CSI, like ESC [; U+0085 NEL a line break to some terminals. */
    expect("\xc2\x9b" "31m \xc2\x85", "\\xc2\\x9b31m \\xc2\\x85");
    expect("\xc2\xa0", "\xc2\xa0"); /* U+00A0 is past C1 */
    expect("bad \xff\xfe \x9b" "31m", "bad \\xff\\xfe \\x9b31m");
    expect("\xc0\xaf\xed\xa0\x80", "\\xc0\\xaf\\xed\\xa0\\x80");
    expect("\xe2\x82", "\\xe2\\x82");

    char small[12];
    CHECK_STR(quote_printable(small, sizeof small, "0123456789abcdef"), "0123456...");
    CHECK_STR(quote_printable(small, sizeof small, "\x1b\x1b\x1b"), "\\x1b...");
    CHECK_STR(quote_printable(small, sizeof small, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"), "\xe2\x82\xac\xe2\x82\xac...");
    /* Columns: characters, not bytes; an escape is as long as it is written. */
    CHECK_INT(quote_columns(""), 0);
    CHECK_INT(quote_columns("plain"), 5);
    CHECK_INT(quote_columns("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), 8);
    CHECK_INT(quote_columns("a\tb\x1b"), 8);         /* a \t b \x1b */
    CHECK_INT(quote_columns("\xc2\x9b" "1 \xff"), 14); /* \xc2\x9b 1 blank \xff */
    return check_exit("test_quote");
}
