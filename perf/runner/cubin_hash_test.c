/* CPU tests of the per-kernel cubin hashes, on real cubins nvcc built from
 * perf/runner/testdata/cubin_kernels.cu (BUILD, CUBIN_VARIANTS): each variant changes one thing, and
 * exactly the kernels that change must get a new hash. Malformed images are refused, never read
 * past their end. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/cubin_hash.h"
#include "tests/support/check_run.h"

typedef struct {
  unsigned char *data;
  size_t size;
} blob;

static blob load(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "perf/runner/%s", name);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  blob b = {NULL, 0};
  size_t cap = 0, n;
  unsigned char buf[65536];
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    if (b.size + n > cap) {
      cap = 2 * (b.size + n);
      b.data = realloc(b.data, cap);
      ck_assert_ptr_nonnull(b.data);
    }
    memcpy(b.data + b.size, buf, n);
    b.size += n;
  }
  fclose(f);
  return b;
}

#define MAXK 8
typedef struct {
  int n;
  char name[MAXK][32];
  uint64_t hash[MAXK];
} kernels;

static void collect(void *user, const char *name, uint64_t hash) {
  kernels *k = user;
  ck_assert_int_lt(k->n, MAXK);
  snprintf(k->name[k->n], sizeof k->name[0], "%s", name);
  k->hash[k->n++] = hash;
}

static kernels hash_file(const char *name) {
  blob b = load(name);
  kernels k = {0};
  char err[256] = "";
  int n = cubin_hash_kernels(b.data, b.size, collect, &k, err, sizeof err);
  ck_assert_msg(n == k.n && n > 0, "%s: %d kernels: %s", name, n, err);
  free(b.data);
  return k;
}

static uint64_t hash_of(const kernels *k, const char *name) {
  for (int i = 0; i < k->n; i++)
    if (strcmp(k->name[i], name) == 0) return k->hash[i];
  ck_abort_msg("no kernel %s", name);
  return 0;
}

/* Every kernel of base is in other; exactly those named in `changed` have another hash. */
static void expect_changed(const char *base_file, const char *other_file, const char *const *changed) {
  kernels base = hash_file(base_file), other = hash_file(other_file);
  for (int i = 0; i < base.n; i++) {
    int want = 0;
    for (const char *const *c = changed; *c; c++) want |= strcmp(*c, base.name[i]) == 0;
    uint64_t h = hash_of(&other, base.name[i]);
    ck_assert_msg((h != base.hash[i]) == want, "%s vs %s: %s's hash %s", base_file, other_file, base.name[i],
                  want ? "did not change" : "changed");
  }
}

START_TEST(base_has_its_kernels_and_is_deterministic) {
  kernels a = hash_file("cubin_base.cubin"), b = hash_file("cubin_base.cubin");
  ck_assert_int_eq(a.n, 3);
  ck_assert_uint_ne(hash_of(&a, "k_a"), hash_of(&a, "k_b"));
  for (int i = 0; i < a.n; i++) ck_assert_uint_eq(a.hash[i], hash_of(&b, a.name[i]));
}
END_TEST

START_TEST(changed_body_changes_that_kernel_only) {
  expect_changed("cubin_base.cubin", "cubin_k_b_changed.cubin", (const char *const[]){"k_b", NULL});
  expect_changed("cubin_base_rdc.cubin", "cubin_k_b_changed_rdc.cubin", (const char *const[]){"k_b", NULL});
}
END_TEST

START_TEST(more_static_shared_memory_changes_that_kernel_only) {
  expect_changed("cubin_base.cubin", "cubin_k_a_more_smem.cubin", (const char *const[]){"k_a", NULL});
}
END_TEST

START_TEST(added_kernel_changes_no_other) {
  /* The new kernel shifts symbol indices: relocations and .nv.info are hashed by symbol name. */
  expect_changed("cubin_base.cubin", "cubin_k_c_added.cubin", (const char *const[]){NULL});
  expect_changed("cubin_base_rdc.cubin", "cubin_k_c_added_rdc.cubin", (const char *const[]){NULL});
  kernels k = hash_file("cubin_k_c_added.cubin");
  ck_assert_int_eq(k.n, 4);
  hash_of(&k, "k_c");
}
END_TEST

START_TEST(changed_callee_changes_its_caller) {
  /* -rdc: k_b calls helper through a text relocation; helper's own section changes, k_b's does not. */
  expect_changed("cubin_base_rdc.cubin", "cubin_helper_changed_rdc.cubin",
                 (const char *const[]){"k_b", "_Z6helperf", NULL});
  /* Whole-program: helper is inlined or cloned into k_b's text. */
  expect_changed("cubin_base.cubin", "cubin_helper_changed.cubin", (const char *const[]){"k_b", NULL});
}
END_TEST

START_TEST(changed_global_initial_value_changes_every_kernel) {
  /* Module data any kernel may read: conservatively part of every kernel's hash. */
  expect_changed("cubin_base.cubin", "cubin_global_init_changed.cubin",
                 (const char *const[]){"k_a", "k_b", "k_g", NULL});
}
END_TEST

static int refused(const unsigned char *data, size_t size, const char *why) {
  kernels k = {0};
  char err[256] = "";
  int n = cubin_hash_kernels(data, size, collect, &k, err, sizeof err);
  ck_assert_msg(k.n == 0, "%zu bytes, expecting '%s': %d kernels reported", size, why, k.n);
  if (n == -1) ck_assert_msg(strstr(err, why) != NULL, "reason '%s' lacks '%s'", err, why);
  return n == -1;
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

START_TEST(malformed_images_are_refused) {
  blob b = load("cubin_base.cubin");
  ck_assert_int_gt(b.size, 1024);
  /* Every truncation: refused (the section headers sit at the end), never a crash. */
  for (size_t len = 0; len < b.size; len += len < 128 ? 1 : 61) ck_assert(refused(b.data, len, ""));
  ck_assert(refused(NULL, 0, "not an ELF"));
  unsigned char *c = malloc(b.size);
  memcpy(c, b.data, b.size);
  c[1] = 'X';
  ck_assert(refused(c, b.size, "not an ELF"));
  memcpy(c, b.data, b.size);
  c[4] = 1; /* ELFCLASS32 */
  ck_assert(refused(c, b.size, "ELF64"));
  memcpy(c, b.data, b.size);
  put_u64(c + 0x28, b.size - 10); /* section header table past the end */
  ck_assert(refused(c, b.size, "section headers out of bounds"));
  memcpy(c, b.data, b.size);
  put_u64(c + 0x28, UINT64_MAX - 8); /* an offset that overflows when added to */
  ck_assert(refused(c, b.size, "section headers out of bounds"));
  /* One section's data past the end: the last section header's sh_offset. */
  memcpy(c, b.data, b.size);
  uint64_t shoff = 0;
  for (int i = 7; i >= 0; i--) shoff = shoff << 8 | c[0x28 + i];
  unsigned shnum = c[0x3c] | c[0x3d] << 8;
  put_u64(c + shoff + (uint64_t)(shnum - 1) * 64 + 0x18, b.size);
  ck_assert(refused(c, b.size, "out of bounds"));
  /* A section name offset past the string table. */
  memcpy(c, b.data, b.size);
  memset(c + shoff + 64 * 2, 0xff, 4);
  ck_assert(refused(c, b.size, "no readable name"));
  free(c);
  free(b.data);
}
END_TEST

START_TEST(table_finds_and_combines) {
  cubin_table *t = cubin_table_new();
  ck_assert_ptr_nonnull(t);
  blob base = load("cubin_base.cubin"), kb = load("cubin_k_b_changed.cubin");
  char err[256];
  uint64_t h, a, b;
  ck_assert_int_eq(cubin_table_find(t, "k_a", &h), -1);
  ck_assert_int_eq(cubin_table_add(t, base.data, base.size, err, sizeof err), 3);
  ck_assert_int_eq(cubin_table_add(t, base.data, 100, err, sizeof err), -1);
  ck_assert_int_eq(cubin_table_find(t, "k_a", &a), 0);
  ck_assert_int_eq(cubin_table_find(t, "k_b", &b), 0);
  ck_assert_int_eq(cubin_table_find(t, "k_z", &h), -1);
  /* The same module again changes nothing; a k_b of other code gives a hash of both. */
  ck_assert_int_eq(cubin_table_add(t, base.data, base.size, err, sizeof err), 3);
  ck_assert_int_eq(cubin_table_find(t, "k_b", &h), 0);
  ck_assert_uint_eq(h, b);
  ck_assert_int_eq(cubin_table_add(t, kb.data, kb.size, err, sizeof err), 3);
  uint64_t both;
  ck_assert_int_eq(cubin_table_find(t, "k_b", &both), 0);
  ck_assert_uint_ne(both, b);
  ck_assert_int_eq(cubin_table_find(t, "k_a", &h), 0);
  ck_assert_uint_eq(h, a);
  /* Order-independent: the other load order gives the same combined hash. */
  cubin_table *u = cubin_table_new();
  ck_assert_int_eq(cubin_table_add(u, kb.data, kb.size, err, sizeof err), 3);
  ck_assert_int_eq(cubin_table_add(u, base.data, base.size, err, sizeof err), 3);
  ck_assert_int_eq(cubin_table_find(u, "k_b", &h), 0);
  ck_assert_uint_eq(h, both);
  cubin_table_free(t);
  cubin_table_free(u);
  free(base.data);
  free(kb.data);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cubin_hash");
  TCase *tc = tcase_create("cubin_hash");
  tcase_add_test(tc, base_has_its_kernels_and_is_deterministic);
  tcase_add_test(tc, changed_body_changes_that_kernel_only);
  tcase_add_test(tc, more_static_shared_memory_changes_that_kernel_only);
  tcase_add_test(tc, added_kernel_changes_no_other);
  tcase_add_test(tc, changed_callee_changes_its_caller);
  tcase_add_test(tc, changed_global_initial_value_changes_every_kernel);
  tcase_add_test(tc, malformed_images_are_refused);
  tcase_add_test(tc, table_finds_and_combines);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
