#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/runner/bench.h"

#define NAME_MAX_LEN 256

typedef struct {
  bench_case c;
  int family_index, instance_index;
} entry;

static entry *g_entries;
static size_t g_count, g_cap;

/* A name's characters: letters, digits, '_', '-' and '.' (no '/', which separates the parts of a
 * benchmark's name, no ':', which separates a parameter from its value, no space or control byte). */
static int name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
      ch == '.';
}

/* s for a message, in buf: its printable ASCII characters up to 40, stopping at the first other byte,
 * which is shown as \xNN (so a pointer to something that is not a string prints no garbage). */
static const char *shown(const char *s, char *buf, size_t len) {
  if (!s) return "(null)";
  size_t k = 0;
  for (; s[k] >= ' ' && s[k] <= '~' && k + 1 < len && k < 40; k++) buf[k] = s[k];
  buf[k] = 0;
  if (s[k] >= ' ' && s[k] <= '~' && k + 4 < len)
    snprintf(buf + k, len - k, "...");
  else if (s[k] && k + 5 < len)
    snprintf(buf + k, len - k, "\\x%02x", (unsigned char)s[k]);
  return buf;
}

/* A malformed registration is bad input: exit 2 (gate check reports a benchmark that exits 2 as such). */
static void die(const char *what, const bench_case *c) {
  char f[64], v[64];
  fprintf(stderr, "bench_register: %s (family '%s', variant '%s')\n", what, shown(c->family, f, sizeof f),
          shown(c->variant, v, sizeof v));
  exit(2);
}

int bench_case_name(const bench_case *c, char *buf, size_t len) {
  int k = snprintf(buf, len, "%s/%s", c->family, c->variant);
  if (k < 0 || (size_t)k >= len) return -1;
  for (int i = 0; i < BENCH_MAX_PARAMS && c->params[i].name; i++) {
    int m = snprintf(buf + k, len - (size_t)k, "/%s:%lld", c->params[i].name, c->params[i].value);
    if (m < 0 || (size_t)m >= len - (size_t)k) return -1;
    k += m;
  }
  return k;
}

/* 1 when s is a non-empty string of name characters, read no further than its first other byte. */
static int valid_token(const char *s) {
  if (!s || !*s) return 0;
  while (name_char(*s)) s++;
  return *s == 0;
}

void bench_register(const bench_case *c) {
  if (!valid_token(c->family) || !valid_token(c->variant))
    die("family and variant must be non-empty strings of letters, digits, '_', '-' and '.'", c);
  for (int i = 0; i < BENCH_MAX_PARAMS && c->params[i].name; i++)
    if (!valid_token(c->params[i].name))
      die("parameter names must be non-empty strings of letters, digits, '_', '-' and '.'", c);
  if (!c->ops || !c->ops->setup || !c->ops->run || !c->ops->verify || !c->ops->teardown)
    die("every case needs setup, run, verify and teardown ops", c);
  if (!(c->bytes >= 0) || !(c->flops >= 0)) die("bytes and flops must be >= 0", c);

  char name[NAME_MAX_LEN], other[NAME_MAX_LEN];
  if (bench_case_name(c, name, sizeof name) < 0) die("name longer than 255 characters", c);
  int family_index = -1, instance = 0, families = 0;
  for (size_t i = 0; i < g_count; i++) {
    const bench_case *o = &g_entries[i].c;
    bench_case_name(o, other, sizeof other);
    if (strcmp(name, other) == 0) die("duplicate benchmark name", c);
    if (g_entries[i].family_index + 1 > families) families = g_entries[i].family_index + 1;
    if (strcmp(o->family, c->family) == 0 && strcmp(o->variant, c->variant) == 0) {
      family_index = g_entries[i].family_index;
      instance++;
    }
  }
  if (family_index < 0) family_index = families;

  if (g_count == g_cap) {
    size_t cap = g_cap ? 2 * g_cap : 16;
    entry *e = realloc(g_entries, cap * sizeof *e);
    if (!e) {
      fprintf(stderr, "bench_register: out of memory\n");
      exit(1);
    }
    g_entries = e;
    g_cap = cap;
  }
  g_entries[g_count].c = *c;
  g_entries[g_count].family_index = family_index;
  g_entries[g_count].instance_index = instance;
  g_count++;
}

/* Entry v of a grid's variant table must start with its name. A table whose first member is something
 * else (a launcher, a number) would hand its bytes to the registry as the name: exit 2 saying so. The
 * bytes are read no further than the first one that cannot be a name's. */
static void check_table_name(const bench_grid *g, size_t v, const char *name) {
  char why[96] = "";
  size_t k = 0;
  if (!name) {
    snprintf(why, sizeof why, "is NULL");
  } else if ((uintptr_t)name < 4096) {
    snprintf(why, sizeof why, "is a small number (%zu), not a pointer to a string", (size_t)(uintptr_t)name);
  } else {
    while (k < NAME_MAX_LEN && name_char(name[k])) k++;
    if (k == NAME_MAX_LEN)
      snprintf(why, sizeof why, "points to no string shorter than %d characters", NAME_MAX_LEN);
    else if (name[k])
      snprintf(why, sizeof why, "points to bytes that are not a name (byte %zu is 0x%02x)", k, (unsigned char)name[k]);
    else if (k == 0)
      snprintf(why, sizeof why, "is an empty string");
  }
  if (!why[0]) return;
  char f[64];
  const char *family = shown(g->family, f, sizeof f);
  fprintf(stderr,
          "bench_register_grid: family '%s': entry %zu of the variant table (kernels/%s/%s_variants.c, given to "
          "BENCH_VARIANTS) does not start with its name: its first member %s. A name is a non-empty string of "
          "letters, digits, '_', '-' and '.'. Fix the table: every entry starts with `const char *name`, "
          "e.g. {\"scale\", scale} (kernels/scale/scale_variants.h and .c).\n",
          family, v, family, family, why);
  exit(2);
}

void bench_register_grid(const bench_grid *g) {
  size_t nparams = 0;
  while (nparams < BENCH_MAX_PARAMS && g->param_names[nparams]) nparams++;
  bench_case first = {.family = g->family, .variant = "(grid)", .ops = g->ops};
  if (!g->table || g->entry_size < sizeof(const char *)) die("a grid needs its variant table (BENCH_VARIANTS)", &first);
  if (g->nsizes && (nparams == 0 || !g->sizes)) die("a grid's sizes need parameter names and values", &first);
  if (!g->cost) die("a grid needs a cost function (bytes and flops of a case)", &first);
  if (!valid_token(g->family))
    die("family and variant must be non-empty strings of letters, digits, '_', '-' and '.'", &first);
  for (size_t v = 0; v < g->nvariants; v++) {
    const char *entry = (const char *)g->table + v * g->entry_size, *name;
    memcpy(&name, entry, sizeof name); /* the entry's first member: its name */
    check_table_name(g, v, name);
    for (size_t s = 0; s < g->nsizes; s++) {
      bench_case c = {.family = g->family, .variant = name, .ops = g->ops, .arg = entry};
      if (g->reference_at) memcpy(&c.reference, entry + g->reference_at, sizeof c.reference);
      if (g->host_round_trip_at) memcpy(&c.host_round_trip, entry + g->host_round_trip_at, sizeof c.host_round_trip);
      for (size_t p = 0; p < nparams; p++) c.params[p] = (bench_param){g->param_names[p], g->sizes[s * nparams + p]};
      g->cost(&c);
      bench_register(&c);
    }
  }
}

size_t bench_count(void) { return g_count; }
const bench_case *bench_get(size_t i) { return i < g_count ? &g_entries[i].c : NULL; }
int bench_family_index(size_t i) { return i < g_count ? g_entries[i].family_index : -1; }
int bench_instance_index(size_t i) { return i < g_count ? g_entries[i].instance_index : -1; }

int bench_same_inputs(size_t i, size_t j) {
  const bench_case *a = bench_get(i), *b = bench_get(j);
  if (!a || !b || a->ops != b->ops || !a->ops->reuse) return 0;
  for (int k = 0; k < BENCH_MAX_PARAMS; k++) {
    const bench_param *p = &a->params[k], *q = &b->params[k];
    if (!p->name != !q->name || (p->name && (strcmp(p->name, q->name) != 0 || p->value != q->value))) return 0;
  }
  return 1;
}

void bench_plan_inputs(const size_t *cases, size_t n, size_t *leader, unsigned char *last) {
  for (size_t p = 0; p < n; p++) {
    leader[p] = p;
    for (size_t q = 0; q < p; q++)
      if (leader[q] == q && bench_same_inputs(cases[q], cases[p])) {
        leader[p] = q;
        break;
      }
  }
  for (size_t p = 0; p < n; p++) {
    last[p] = 1;
    for (size_t q = p + 1; q < n && last[p]; q++)
      if (leader[q] == leader[p]) last[p] = 0;
  }
}

void bench_registry_clear(void) {
  free(g_entries);
  g_entries = NULL;
  g_count = g_cap = 0;
}
