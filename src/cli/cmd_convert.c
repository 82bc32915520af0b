/* `volley convert` (cmd_convert.h): hands its words to the bundled
 * volley.convert.main, which reads the recording and writes the script.
 * Lua, not C: it is text in, text out, off the request path, and its
 * pieces are unit-tested with busted as they are. */
#include "cmd_convert.h"

#include "cmd.h"
#include "script.h"

int cmd_convert(int argc, char **argv)
{
    char err[512];
    int status = script_module_main("volley.convert.main", argv + 1, argc - 1, err, sizeof err);
    if (status < 0)
        return cmd_fail("convert", 1, "%s", err);
    return status;
}
