/* The one main of the Check test binaries: runs a suite, prints each test's result, and turns
 * the outcome into the binary's exit status. */
#ifndef TESTS_SUPPORT_CHECK_RUN_H
#define TESTS_SUPPORT_CHECK_RUN_H

#include <check.h>

/* Runs every test of s (each in a fork of its own, Check's default) and returns EXIT_SUCCESS when all
 * passed, else EXIT_FAILURE. Frees the runner, which frees s. */
int run_suite(Suite *s);

/* The same with every test in this process: a CUDA context does not survive fork. */
int run_suite_in_process(Suite *s);

/* Runs `sh -c cmd` with its files limited to `bytes` (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails with
 * EFBIG, as on a full disk) and its standard output into out (a pipe, which the limit does not cut short;
 * NUL-terminated, cut to len - 1 bytes). Returns its exit status, -1 when it did not exit. */
int run_with_file_limit(const char *cmd, unsigned long long bytes, char *out, size_t len);

#endif
