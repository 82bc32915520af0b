/* fdtable_reserve: the process's descriptor table holds n descriptors
 * after it (FDSize in /proc/self/status, the kernel's table size), and no
 * descriptor is left open. */
#include "../check.h"
#include "fdtable.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static long fd_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long size = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "FDSize:", 7))
            sscanf(line + 7, "%ld", &size);
    if (f)
        fclose(f);
    return size;
}

/* The lowest free descriptor: the same before and after means nothing was
 * left open. */
static int lowest_free(void)
{
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0)
        close(fd);
    return fd;
}

int main(void)
{
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    int n = rl.rlim_cur > 3000 ? 3000 : (int)rl.rlim_cur;
    CHECK(n > 256);
    long before = fd_size();
    CHECK(before > 0 && before < n); /* a fresh process's table is small */
    int low = lowest_free();
    CHECK(fdtable_reserve(n) == 0);
    CHECK(fd_size() >= n);
    CHECK(lowest_free() == low);
    /* Already large enough, and the trivial sizes: nothing to do. */
    CHECK(fdtable_reserve(64) == 0);
    CHECK(fdtable_reserve(0) == 0);
    CHECK(fd_size() >= n);
    /* Beyond the limit: an error, and nothing left open. */
    CHECK(fdtable_reserve((int)(rl.rlim_cur < 1000000 ? rl.rlim_cur + 1 : 1000001)) == -1);
    CHECK(lowest_free() == low);
    return check_exit("fdtable");
}
