/*
 * fake_module.c -- an alea-exact.so from "another build": the table's
 * symbol, with a version and sizes no build of alea has. The test
 * exact_module_mismatch puts it first on LD_LIBRARY_PATH and checks that
 * exact mode refuses it, by name, instead of calling into it.
 */
#include <stddef.h>

struct fake_ops {
    const char *version;
    size_t sizes[5];
};

__attribute__((visibility("default"))) extern const struct fake_ops alea_exact_module_ops;
const struct fake_ops alea_exact_module_ops = {"0.0.0-other", {1, 2, 3, 4, 5}};
