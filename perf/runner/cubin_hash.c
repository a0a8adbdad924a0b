#define _POSIX_C_SOURCE 200809L
#include "perf/runner/cubin_hash.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t cubin_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t mix_u64(uint64_t h, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
  return cubin_fnv1a(h, b, sizeof b);
}

/* Strings with their NUL, so "ab"+"c" and "a"+"bc" differ. */
static uint64_t mix_str(uint64_t h, const char *s) { return cubin_fnv1a(h, s, strlen(s) + 1); }

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* ---------- ELF64, little-endian, read by byte offsets (no alignment assumed) ---------- */

enum { SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4, SHT_NOBITS = 8, SHT_REL = 9 };
enum { EHDR = 64, SHDR = 64, SYM = 24, REL = 16, RELA = 24, STT_SECTION = 3 };

static uint64_t rd(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

typedef struct {
  uint32_t name_off, type, link, info;
  uint64_t offset, size, entsize;
  const char *name;
} shdr;

typedef struct {
  const unsigned char *data;
  size_t size;
  size_t n;
  shdr *sh;
} elf;

/* The bytes of a section that has some in the file (bounds were checked in elf_open). */
static const unsigned char *sec_bytes(const elf *e, size_t i) {
  return e->sh[i].type == SHT_NOBITS ? NULL : e->data + e->sh[i].offset;
}

static size_t sec_len(const elf *e, size_t i) { return e->sh[i].type == SHT_NOBITS ? 0 : (size_t)e->sh[i].size; }

/* A NUL-terminated string at off inside string-table section i, or NULL. */
static const char *str_at(const elf *e, size_t i, uint64_t off) {
  if (i >= e->n || e->sh[i].type == SHT_NOBITS || off >= e->sh[i].size) return NULL;
  const char *s = (const char *)sec_bytes(e, i) + off;
  return memchr(s, '\0', (size_t)(e->sh[i].size - off)) ? s : NULL;
}

/* The name a relocation's symbol stands for: its own, or for a section symbol its section's. */
static const char *sym_name(const elf *e, size_t symtab, uint64_t idx) {
  const unsigned char *s = sec_bytes(e, symtab) + idx * SYM;
  const char *name = str_at(e, e->sh[symtab].link, rd(s, 4));
  uint64_t shndx = rd(s + 6, 2);
  if (name && !*name && (s[4] & 0xf) == STT_SECTION && shndx < e->n) name = e->sh[shndx].name;
  return name ? name : "";
}

/* Validates every header, section bound, name, symbol and relocation the hashing reads, so that
 * the hashing itself cannot fail halfway. */
static int elf_open(elf *e, const void *data, size_t size, char *err, size_t errlen) {
  const unsigned char *d = data;
  memset(e, 0, sizeof *e);
  e->data = d;
  e->size = size;
  if (!d || size < EHDR ||
      memcmp(d,
             "\x7f"
             "ELF",
             4) != 0)
    return set_err(err, errlen, "not an ELF image"), -1;
  if (d[4] != 2 || d[5] != 1) return set_err(err, errlen, "not a little-endian ELF64 image"), -1;
  uint64_t shoff = rd(d + 0x28, 8), shentsize = rd(d + 0x3a, 2), shnum = rd(d + 0x3c, 2), shstrndx = rd(d + 0x3e, 2);
  if (shentsize != SHDR || shnum == 0 || shstrndx >= shnum)
    return set_err(err, errlen, "bad section header table (entry size %llu, %llu sections, names in %llu)",
                   (unsigned long long)shentsize, (unsigned long long)shnum, (unsigned long long)shstrndx),
           -1;
  if (shoff > size || shnum * SHDR > size - shoff)
    return set_err(err, errlen, "section headers out of bounds (%llu at offset %llu in %zu bytes)",
                   (unsigned long long)shnum, (unsigned long long)shoff, size),
           -1;
  /* The segments too, though unread: a truncated image is refused whichever table comes last. */
  uint64_t phoff = rd(d + 0x20, 8), phentsize = rd(d + 0x36, 2), phnum = rd(d + 0x38, 2);
  if (phnum && (phentsize < 56 || phoff > size || phnum * phentsize > size - phoff))
    return set_err(err, errlen, "program headers out of bounds"), -1;
  for (uint64_t i = 0; i < phnum; i++) {
    const unsigned char *ph = d + phoff + i * phentsize;
    uint64_t off = rd(ph + 8, 8), filesz = rd(ph + 0x20, 8);
    if (off > size || filesz > size - off)
      return set_err(err, errlen, "segment %llu out of bounds", (unsigned long long)i), -1;
  }
  e->n = (size_t)shnum;
  e->sh = calloc(e->n, sizeof *e->sh);
  if (!e->sh) return set_err(err, errlen, "out of memory"), -1;
  for (size_t i = 0; i < e->n; i++) {
    const unsigned char *h = d + shoff + i * SHDR;
    shdr *s = &e->sh[i];
    s->name_off = (uint32_t)rd(h, 4);
    s->type = (uint32_t)rd(h + 4, 4);
    s->offset = rd(h + 0x18, 8);
    s->size = rd(h + 0x20, 8);
    s->link = (uint32_t)rd(h + 0x28, 4);
    s->info = (uint32_t)rd(h + 0x2c, 4);
    s->entsize = rd(h + 0x38, 8);
    if (s->type != SHT_NOBITS && (s->offset > size || s->size > size - s->offset)) {
      set_err(err, errlen, "section %zu out of bounds (%llu bytes at offset %llu in %zu)", i,
              (unsigned long long)s->size, (unsigned long long)s->offset, size);
      return free(e->sh), -1;
    }
  }
  for (size_t i = 0; i < e->n; i++)
    if (!(e->sh[i].name = str_at(e, (size_t)shstrndx, e->sh[i].name_off))) {
      set_err(err, errlen, "section %zu has no readable name", i);
      return free(e->sh), -1;
    }
  for (size_t i = 0; i < e->n; i++) {
    shdr *s = &e->sh[i];
    if (s->type == SHT_SYMTAB) {
      if (s->size % SYM || s->link >= e->n || e->sh[s->link].type == SHT_NOBITS) {
        set_err(err, errlen, "malformed symbol table %s", s->name);
        return free(e->sh), -1;
      }
      for (uint64_t k = 0; k < s->size / SYM; k++)
        if (!str_at(e, s->link, rd(sec_bytes(e, i) + k * SYM, 4))) {
          set_err(err, errlen, "symbol %llu of %s has no readable name", (unsigned long long)k, s->name);
          return free(e->sh), -1;
        }
    } else if (s->type == SHT_REL || s->type == SHT_RELA) {
      uint64_t es = s->type == SHT_REL ? REL : RELA;
      /* A relocation section this reader cannot follow (seen in a cuBLAS module on an H200: a
       * .rela.nv.constant2.<kernel>) is left out rather than refusing the whole module: the kernels'
       * own text, info and sizes are still hashed, and a library's code changes with its text. */
      int bad = s->size % es || s->link >= e->n || e->sh[s->link].type != SHT_SYMTAB || s->info >= e->n;
      for (uint64_t k = 0; !bad && k < s->size / es; k++)
        bad = (rd(sec_bytes(e, i) + k * es + 8, 8) >> 32) >= e->sh[s->link].size / SYM;
      if (bad) s->type = 0; /* SHT_NULL: not read as relocations */
    }
  }
  return 0;
}

/* Each relocation as (offset, type, symbol name, addend): indices shift when symbols are added. */
static uint64_t mix_relocs(uint64_t h, const elf *e, size_t i) {
  const shdr *s = &e->sh[i];
  uint64_t es = s->type == SHT_REL ? REL : RELA;
  for (uint64_t k = 0; k < s->size / es; k++) {
    const unsigned char *r = sec_bytes(e, i) + k * es;
    uint64_t info = rd(r + 8, 8);
    h = mix_u64(h, rd(r, 8));
    h = mix_u64(h, info & 0xffffffffu);
    h = mix_str(h, sym_name(e, s->link, info >> 32));
    h = mix_u64(h, s->type == SHT_RELA ? rd(r + 16, 8) : 0);
  }
  return h;
}

/* .nv.info records: u8 format, u8 attribute, u16 value, or (format 4) u16 size and that many bytes.
 * Two attributes hold symbol indices, which shift when a kernel is added to the module: the
 * parameter bank (its first word) and the list of external symbols (every word). */
enum { EIFMT_SVAL = 4, EIATTR_PARAM_CBANK = 0x0a, EIATTR_EXTERNS = 0x0f };

/* Walks the records of section i, mixing each into *h when h is non-NULL. Returns -1 when they do
 * not parse (overrun, a symbol index out of range): then the caller hashes the raw bytes. */
static int walk_nv_info(const elf *e, size_t i, uint64_t *h) {
  const shdr *s = &e->sh[i];
  const unsigned char *p = sec_bytes(e, i);
  size_t n = sec_len(e, i), at = 0;
  int syms = s->link < e->n && e->sh[s->link].type == SHT_SYMTAB;
  uint64_t nsyms = syms ? e->sh[s->link].size / SYM : 0;
  while (at < n) {
    if (n - at < 4) return -1;
    unsigned fmt = p[at], attr = p[at + 1], v = (unsigned)rd(p + at + 2, 2);
    size_t len = fmt == EIFMT_SVAL ? v : 0;
    if (len > n - at - 4) return -1;
    const unsigned char *val = p + at + 4;
    if (h) *h = mix_u64(*h, fmt | attr << 8 | (uint64_t)v << 16);
    for (size_t w = 0; w < len; w += 4) {
      int sym = fmt == EIFMT_SVAL && w + 4 <= len && ((attr == EIATTR_PARAM_CBANK && w == 0) || attr == EIATTR_EXTERNS);
      if (sym && (!syms || rd(val + w, 4) >= nsyms)) return -1;
      if (h && sym)
        *h = mix_str(*h, sym_name(e, s->link, rd(val + w, 4)));
      else if (h)
        *h = cubin_fnv1a(*h, val + w, len - w < 4 ? len - w : 4);
    }
    at += 4 + len;
  }
  return 0;
}

static uint64_t mix_nv_info(uint64_t h, const elf *e, size_t i) {
  h = mix_u64(mix_str(h, "info"), e->sh[i].size);
  if (walk_nv_info(e, i, NULL) == 0) {
    walk_nv_info(e, i, &h);
    return h;
  }
  return cubin_fnv1a(mix_str(h, "raw"), sec_bytes(e, i), sec_len(e, i));
}

static const char *after(const char *s, const char *prefix) {
  size_t n = strlen(prefix);
  return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* ".nv.constant<N>.<kernel>" -> "<kernel>"; ".nv.constant<N>" (a module's bank) -> "". */
static const char *constant_bank(const char *name) {
  const char *p = after(name, ".nv.constant");
  if (!p || *p < '0' || *p > '9') return NULL;
  while (*p >= '0' && *p <= '9') p++;
  if (!*p) return p;
  return *p == '.' ? p + 1 : NULL;
}

/* The text section of kernel `k` (a name suffix), preferring the one sh_info points at. */
static size_t kernel_of(const elf *e, const char *k, uint32_t info) {
  const char *t;
  if (info < e->n && (t = after(e->sh[info].name, ".text.")) && strcmp(t, k) == 0) return info;
  for (size_t i = 0; i < e->n; i++)
    if ((t = after(e->sh[i].name, ".text.")) && strcmp(t, k) == 0) return i;
  return (size_t)-1;
}

enum { PART_NONE, PART_INFO, PART_SHARED, PART_CONSTANT, PART_RELOC };

/* Which kernel's text section i belongs to, and as what part; (size_t)-1 when none. */
static size_t owner(const elf *e, size_t i, int *part) {
  const shdr *s = &e->sh[i];
  const char *k;
  *part = PART_NONE;
  if ((k = after(s->name, ".nv.info.")))
    *part = PART_INFO;
  else if ((k = after(s->name, ".nv.shared.")))
    *part = PART_SHARED;
  else if ((k = constant_bank(s->name)) && *k)
    *part = PART_CONSTANT;
  else if ((s->type == SHT_REL || s->type == SHT_RELA) && after(e->sh[s->info].name, ".text."))
    return *part = PART_RELOC, s->info;
  return *part == PART_NONE ? (size_t)-1 : kernel_of(e, k, s->info);
}

static uint64_t mix_part(uint64_t h, const elf *e, size_t i, int part) {
  const shdr *s = &e->sh[i];
  switch (part) {
    case PART_INFO: return mix_nv_info(h, e, i);
    case PART_SHARED: return mix_u64(mix_str(h, "shared"), s->size);
    case PART_CONSTANT:
      /* The bank's name and size: what the launch reserves, not the parameter values. */
      return mix_u64(mix_str(mix_str(h, "constant"), s->name), s->size);
    default: return mix_relocs(mix_str(h, "reloc"), e, i);
  }
}

/* The module's shared data, which any of its kernels may read: __constant__ banks and the
 * relocations that fill them (addresses of __device__ globals), globals' initial values and size. */
static uint64_t module_hash(const elf *e) {
  uint64_t h = CUBIN_FNV_OFFSET;
  for (size_t i = 0; i < e->n; i++) {
    const shdr *s = &e->sh[i];
    const char *k = constant_bank(s->name);
    int data = (k && !*k) || strcmp(s->name, ".nv.global.init") == 0 || strcmp(s->name, ".nv.global") == 0;
    int rel = (s->type == SHT_REL || s->type == SHT_RELA) && (k = constant_bank(e->sh[s->info].name)) && !*k;
    if (data) h = cubin_fnv1a(mix_u64(mix_str(h, s->name), s->size), sec_bytes(e, i), sec_len(e, i));
    if (rel) h = mix_relocs(mix_str(h, s->name), e, i);
  }
  return h;
}

/* The text section a text relocation's symbol lies in (a call to a function of its own section in
 * a relocatable image), or (size_t)-1. */
static size_t callee(const elf *e, size_t rel, uint64_t k) {
  const shdr *s = &e->sh[rel];
  const unsigned char *r = sec_bytes(e, rel) + k * (s->type == SHT_REL ? REL : RELA);
  uint64_t shndx = rd(sec_bytes(e, s->link) + (rd(r + 8, 8) >> 32) * SYM + 6, 2);
  return shndx < e->n && shndx != s->info && after(e->sh[shndx].name, ".text.") ? (size_t)shndx : (size_t)-1;
}

/* Mixes into *h the own hash of every text section that text section t reaches through its
 * relocations (callees of a relocatable image), each once: a changed callee changes its callers. */
static void mix_callees(const elf *e, const uint64_t *own, size_t t, unsigned *seen, unsigned gen, uint64_t *h) {
  seen[t] = gen;
  for (size_t i = 0; i < e->n; i++) {
    const shdr *s = &e->sh[i];
    if ((s->type != SHT_REL && s->type != SHT_RELA) || s->info != t) continue;
    for (uint64_t k = 0; k < s->size / (s->type == SHT_REL ? REL : RELA); k++) {
      size_t c = callee(e, i, k);
      if (c == (size_t)-1 || seen[c] == gen) continue;
      *h = mix_u64(mix_str(*h, e->sh[c].name), own[c]);
      mix_callees(e, own, c, seen, gen, h);
    }
  }
}

int cubin_hash_kernels(const void *data, size_t size, cubin_kernel_fn fn, void *user, char *err, size_t errlen) {
  elf e;
  if (elf_open(&e, data, size, err, errlen) != 0) return -1;
  uint64_t *h = calloc(e.n, sizeof *h);
  unsigned *seen = calloc(e.n, sizeof *seen);
  if (!h || !seen) {
    free(h);
    free(seen);
    free(e.sh);
    set_err(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < e.n; i++)
    if (after(e.sh[i].name, ".text."))
      h[i] = cubin_fnv1a(mix_u64(mix_str(CUBIN_FNV_OFFSET, "text"), e.sh[i].size), sec_bytes(&e, i), sec_len(&e, i));
  /* Every other section of a kernel, in section order. */
  for (size_t i = 0; i < e.n; i++) {
    int part;
    size_t t = owner(&e, i, &part);
    if (t != (size_t)-1) h[t] = mix_part(h[t], &e, i, part);
  }
  uint64_t mod = module_hash(&e);
  int n = 0;
  for (size_t i = 0; i < e.n; i++) {
    const char *k = after(e.sh[i].name, ".text.");
    if (!k) continue;
    uint64_t all = mix_u64(h[i], mod);
    mix_callees(&e, h, i, seen, (unsigned)i + 1, &all);
    fn(user, k, all);
    n++;
  }
  free(h);
  free(seen);
  free(e.sh);
  return n;
}

/* ---------- the table ---------- */

typedef struct {
  char *name;
  uint64_t *hashes; /* distinct, sorted */
  size_t n;
} entry;

struct cubin_table {
  entry *slot; /* open addressing, power-of-two size */
  size_t cap, used;
};

cubin_table *cubin_table_new(void) {
  cubin_table *t = calloc(1, sizeof *t);
  if (t && !(t->slot = calloc(t->cap = 64, sizeof *t->slot))) {
    free(t);
    t = NULL;
  }
  return t;
}

void cubin_table_free(cubin_table *t) {
  if (!t) return;
  for (size_t i = 0; i < t->cap; i++) {
    free(t->slot[i].name);
    free(t->slot[i].hashes);
  }
  free(t->slot);
  free(t);
}

static entry *lookup(entry *slot, size_t cap, const char *name) {
  size_t i = (size_t)mix_str(CUBIN_FNV_OFFSET, name) & (cap - 1);
  while (slot[i].name && strcmp(slot[i].name, name) != 0) i = (i + 1) & (cap - 1);
  return &slot[i];
}

static int grow(cubin_table *t) {
  entry *slot = calloc(t->cap * 2, sizeof *slot);
  if (!slot) return -1;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i].name) *lookup(slot, t->cap * 2, t->slot[i].name) = t->slot[i];
  free(t->slot);
  t->slot = slot;
  t->cap *= 2;
  return 0;
}

typedef struct {
  cubin_table *t;
  int failed;
} add_ctx;

static void add_one(void *user, const char *name, uint64_t hash) {
  add_ctx *a = user;
  cubin_table *t = a->t;
  if (a->failed) return;
  if ((t->used + 1) * 2 > t->cap && grow(t) != 0) {
    a->failed = 1;
    return;
  }
  entry *e = lookup(t->slot, t->cap, name);
  size_t at = 0;
  while (at < e->n && e->hashes[at] < hash) at++;
  if (at < e->n && e->hashes[at] == hash) return;
  uint64_t *h = realloc(e->hashes, (e->n + 1) * sizeof *h);
  char *copy = e->name ? e->name : strdup(name);
  if (!h || !copy) {
    if (h) e->hashes = h;
    if (copy != e->name) free(copy);
    a->failed = 1;
    return;
  }
  memmove(h + at + 1, h + at, (e->n - at) * sizeof *h);
  h[at] = hash;
  if (!e->name) t->used++;
  e->name = copy;
  e->hashes = h;
  e->n++;
}

int cubin_table_add(cubin_table *t, const void *data, size_t size, char *err, size_t errlen) {
  add_ctx a = {t, 0};
  int n = cubin_hash_kernels(data, size, add_one, &a, err, errlen);
  if (n >= 0 && a.failed) {
    set_err(err, errlen, "out of memory");
    return -1;
  }
  return n;
}

int cubin_table_find(const cubin_table *t, const char *name, uint64_t *hash) {
  const entry *e = lookup(t->slot, t->cap, name);
  if (!e->name) return -1;
  if (e->n == 1) {
    *hash = e->hashes[0];
    return 0;
  }
  uint64_t h = mix_str(CUBIN_FNV_OFFSET, "several");
  for (size_t i = 0; i < e->n; i++) h = mix_u64(h, e->hashes[i]);
  *hash = h;
  return 0;
}
