/* Sizing the descriptor table up front (the reason: fdtable.h). */
#include "fdtable.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int fdtable_reserve(int n)
{
    if (n <= 1)
        return 0;
    /* Any open descriptor serves as the original; a process started with
     * stdio closed still has the one made here. */
    int base = fcntl(STDERR_FILENO, F_GETFD) >= 0 ? STDERR_FILENO : -1;
    int made = -1;
    if (base < 0 && (base = made = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    int copy = fcntl(base, F_DUPFD_CLOEXEC, n - 1);
    int err = errno;
    if (copy >= 0)
        close(copy);
    if (made >= 0)
        close(made);
    errno = err;
    return copy >= 0 ? 0 : -1;
}
