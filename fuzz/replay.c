/*
 * replay.c -- a fuzz target without libFuzzer: each file named on the
 * command line is read and passed once to LLVMFuzzerTestOneInput. The test
 * suite links it with each target (tests/CMakeLists.txt) and replays
 * fuzz/regressions/, so every finding stays a test in every build, gcc and
 * the sanitizers included. A broken check aborts, as under libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file in a malloc'd block of exactly its size (libFuzzer's
 * contract: no terminator, so reading past the end is a finding). */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    uint8_t *exact = malloc(n ? n : 1);
    if (exact) {
        for (size_t i = 0; i < n; i++)
            exact[i] = buf[i];
    }
    free(buf);
    *size = n;
    return exact;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        uint8_t *data = slurp(argv[i], &size);
        if (!data) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 1;
        }
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    printf("%d inputs replayed\n", argc - 1);
    return 0;
}
