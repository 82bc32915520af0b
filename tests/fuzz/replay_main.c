/* A main() for a libFuzzer target without libFuzzer: runs
 * LLVMFuzzerTestOneInput once over each file named on the command line, and
 * over each regular file in each directory named. Linked with fuzz_http.c
 * and fuzz_json.c into plain programs, so that ctest replays the corpora in
 * every build (ASan/UBSan included) and a crash file can be replayed with
 * any compiler. Exit status 1 if nothing was run or a file was unreadable. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            perror(argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += replay_file(argv[i]) < 0;
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (e->d_name[0] == '.' || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                continue;
            bad += replay_file(path) < 0;
            count++;
        }
        if (d)
            closedir(d);
    }
    if (count == 0 || bad) {
        fprintf(stderr, "%s: %d inputs, %d unreadable\n", name, count, bad);
        return 1;
    }
    printf("%s: %d inputs ok\n", name, count);
    return 0;
}
