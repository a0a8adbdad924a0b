/* Per-kernel hashes of the machine code in a cubin (an ELF64 image), and a table of them by kernel
 * name. Pure C, no CUDA: the fingerprint mode (--fingerprint_out) feeds it the cubins CUPTI reports
 * as modules load, and looks up the kernels that ran.
 *
 * A kernel's hash covers what decides what it executes: its .text.<kernel> bytes, its
 * .nv.info.<kernel> bytes, the sizes of .nv.shared.<kernel> and of each .nv.constant<N>.<kernel>,
 * the relocations of its text section as (offset, type, symbol name, addend), and the module's
 * shared data (.nv.constant<N> banks with their relocations, .nv.global.init, the size of
 * .nv.global), which any kernel of the module may read. Symbols are hashed by name, never by
 * index, so adding an unrelated kernel to a module leaves the others' hashes as they were. */
#ifndef PERF_RUNNER_CUBIN_HASH_H
#define PERF_RUNNER_CUBIN_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64 of n bytes, continuing from h (start with CUBIN_FNV_OFFSET). */
#define CUBIN_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t cubin_fnv1a(uint64_t h, const void *data, size_t n);

typedef void (*cubin_kernel_fn)(void *user, const char *name, uint64_t hash);

/* Calls fn once per kernel (.text.<name> section) of the cubin. Returns the number of kernels, or
 * -1 with a reason in err when the image is not a well-formed little-endian ELF64 (then fn was
 * never called: a malformed module contributes nothing). Never reads outside data[0..size). */
int cubin_hash_kernels(const void *data, size_t size, cubin_kernel_fn fn, void *user, char *err, size_t errlen);

/* Kernel name -> hash. A name seen in several modules with different hashes gets a hash of all of
 * them (order-independent), so a change in any copy still shows. */
typedef struct cubin_table cubin_table;

cubin_table *cubin_table_new(void);
void cubin_table_free(cubin_table *t);
/* Adds a cubin's kernels. Returns their number, or -1 with a reason: a malformed image (nothing
 * added) or out of memory (some of its kernels may be missing: looked up, they are unknown). */
int cubin_table_add(cubin_table *t, const void *data, size_t size, char *err, size_t errlen);
/* 0 and *hash when the name is in the table, else -1. */
int cubin_table_find(const cubin_table *t, const char *name, uint64_t *hash);

#endif
