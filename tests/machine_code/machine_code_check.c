/* Checks what nvcc emitted for a kernel family:
 *   - kernels meant to be vectorised really use 16-byte global loads/stores,
 *     in the PTX (ld.global[.nc].v4 / st.global.v4) and, given an object file
 *     and cuobjdump, in the SASS (LDG.E...128 / STG.E...128);
 *   - kernels that claim tensor-core or Hopper instructions issue them: TF32 mma.sync, ldmatrix,
 *     cp.async, wgmma, TMA (--tf32_mma, --ldmatrix, --cp_async, --wgmma, --tma; see `kinds` below);
 *   - no kernel spills registers to local memory (ptxas -v report).
 * Files are named on the command line; their type comes from the suffix:
 *   .ptx                  PTX text
 *   .resource_usage.txt   ptxas -v report
 *   .o                    object file, disassembled with $CUDA_PATH/bin/cuobjdump
 *   .sass                 cuobjdump --dump-sass output, already dumped
 * A kernel pattern that matches no kernel is an error, so a rename cannot turn
 * a machine-code check into one that passes vacuously. Exit 0 all good, 1 a check failed,
 * 2 bad usage or unreadable input. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *kernels; /* ERE over kernel (mangled) names, or NULL */
  const char *instr;   /* ERE an instruction line must match */
  const char *what;
} rule;

static int failures = 0;
/* Kernels each rule matched, over all files of a kind: checked at the end. */
static int seen_ptx[16], seen_sass[16], files_ptx, files_sass; /* per kind: at least NKINDS */

static void compile(regex_t *re, const char *pattern) {
  int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char msg[256];
    regerror(rc, re, msg, sizeof msg);
    fprintf(stderr, "machine_code_check: bad regex '%s': %s\n", pattern, msg);
    exit(2);
  }
}

static char *slurp(FILE *f, const char *name) {
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  if (!buf) {
    fprintf(stderr, "machine_code_check: out of memory reading %s\n", name);
    exit(2);
  }
  buf[len] = '\0';
  return buf;
}

/* Splits `text` into lines (in place) and returns them; *n gets the count. */
static char **split_lines(char *text, size_t *n) {
  size_t cap = 1024, k = 0;
  char **lines = malloc(cap * sizeof *lines);
  for (char *p = text; lines && p && *p;) {
    if (k == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
    if (!lines) break;
    lines[k++] = p;
    p = strchr(p, '\n');
    if (p) *p++ = '\0';
  }
  if (!lines) {
    fprintf(stderr, "machine_code_check: out of memory\n");
    exit(2);
  }
  *n = k;
  return lines;
}

/* A kernel starts at a line matching `start_re` and runs to the next such line.
 * For each rule, every kernel whose header line matches rule.kernels must
 * contain an instruction line matching rule.instr. */
static void check_kernels(const char *file, char *text, const char *start_re, const rule *rules, int nrules,
                          int *seen_by_rule) {
  size_t n;
  char **lines = split_lines(text, &n);
  regex_t start;
  compile(&start, start_re);
  for (int r = 0; r < nrules; r++) {
    if (!rules[r].kernels) continue;
    regex_t want_kernel, want_instr;
    compile(&want_kernel, rules[r].kernels);
    compile(&want_instr, rules[r].instr);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
      if (regexec(&start, lines[i], 0, NULL, 0) != 0 || regexec(&want_kernel, lines[i], 0, NULL, 0) != 0) continue;
      seen++;
      int found = 0;
      for (size_t j = i + 1; j < n && regexec(&start, lines[j], 0, NULL, 0) != 0; j++)
        if (regexec(&want_instr, lines[j], 0, NULL, 0) == 0) {
          found = 1;
          break;
        }
      printf("%s: %s\n    %s: %s\n", file, lines[i], rules[r].what, found ? "ok" : "MISSING");
      if (!found) failures++;
    }
    seen_by_rule[r] += seen;
    regfree(&want_kernel);
    regfree(&want_instr);
  }
  regfree(&start);
  free(lines);
}

/* ptxas -v: "Compiling entry function 'NAME' for 'sm_90'" then
 * "N bytes stack frame, S bytes spill stores, L bytes spill loads". */
static void check_spills(const char *file, char *text) {
  int functions = 0;
  char name[512] = "?";
  int has_ptxas_info = strstr(text, "ptxas info") != NULL;
  size_t n;
  char **lines = split_lines(text, &n);
  for (size_t i = 0; i < n; i++) {
    const char *line = lines[i];
    const char *q = strstr(line, "Compiling entry function '");
    if (!q) q = strstr(line, "Function properties for ");
    if (q) {
      const char *s = strchr(q, '\'') ? strchr(q, '\'') + 1 : q + strlen("Function properties for ");
      size_t n = strcspn(s, "'");
      if (n >= sizeof name) n = sizeof name - 1;
      memcpy(name, s, n);
      name[n] = '\0';
      continue;
    }
    unsigned long frame, stores, loads;
    const char *p = strstr(line, "bytes stack frame");
    if (p &&
        sscanf(line, " %lu bytes stack frame, %lu bytes spill stores, %lu bytes spill loads", &frame, &stores,
               &loads) == 3) {
      functions++;
      int ok = stores == 0 && loads == 0;
      printf("%s: %s\n    spills: %lu stores, %lu loads (stack %lu): %s\n", file, name, stores, loads, frame,
             ok ? "ok" : "SPILLS");
      if (!ok) failures++;
    }
  }
  free(lines);
  /* A file with no kernels (host code only) reports no functions, but ptxas -v still speaks. */
  if (functions == 0 && !has_ptxas_info) {
    printf("%s: no functions in the ptxas report: was it produced with -Xptxas -v?\n", file);
    failures++;
  }
}

/* What a kernel may be required to issue: its option, the PTX and SASS instruction EREs, and what
 * the line says. A 16-byte load is ld.global.v4, with any cache operator or hint (.nc, .cg, .L2::...),
 * or a 16-byte cp.async into shared memory (sm_80+); a 16-byte store is st.global.v4, with any cache
 * operator (.cg, .cs, ...). */
typedef struct {
  const char *option, *ptx, *sass, *what;
} kind;
static const kind kinds[] = {
    {"vector_loads",
     "ld\\.global(\\.(nc|ca|cg|cs|lu|cv))*(\\.L[12]::[a-z_0-9]+)*\\.v4\\.(f32|b32|u32)|"
     "cp\\.async\\.c[ag]\\.shared\\.global[^,]*, \\[[^]]*\\], 16[,;]",
     "LDG\\.E[.A-Z0-9]*\\.128|LDGSTS\\.E[.A-Z0-9]*\\.128", "16-byte loads"},
    {"vector_stores", "st\\.global(\\.(wb|cg|cs|wt))*(\\.L[12]::[a-z_0-9]+)*\\.v4\\.(f32|b32|u32)",
     "STG\\.E[.A-Z0-9]*\\.128", "16-byte stores"},
    {"tf32_mma", "mma\\.sync\\.aligned\\.m16n8k8\\.row\\.col\\.f32\\.tf32\\.tf32\\.f32", "HMMA\\.16[0-9]+\\.F32\\.TF32",
     "TF32 tensor-core mma.sync (m16n8k8)"},
    {"ldmatrix", "ldmatrix\\.sync\\.aligned", "LDSM", "ldmatrix (shared memory -> fragments)"},
    {"cp_async", "cp\\.async\\.c[ag]\\.shared\\.global", "LDGSTS", "cp.async (global -> shared, no registers)"},
    {"wgmma", "wgmma\\.mma_async\\.sync\\.aligned\\.m64n[0-9]+k8\\.f32\\.tf32\\.tf32",
     "HGMMA\\.64x[0-9]+x8\\.F32\\.TF32", "TF32 warpgroup mma (wgmma)"},
    {"tma", "cp\\.async\\.bulk\\.tensor", "UTMALDG", "TMA tensor copies (cp.async.bulk.tensor)"},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))
_Static_assert(sizeof kinds / sizeof kinds[0] <= sizeof seen_ptx / sizeof seen_ptx[0], "seen_ptx: one per kind");

/* cuobjdump prints one section per GPU arch ("code for sm_80", "code for sm_90a"). Only the newest
 * arch is checked, as the PTX is (third_party/cuda/cuda.bzl): an sm_90a-only kernel (wgmma) has an
 * empty body in its sm_80 build. The other sections are cut out of `text` in place. */
static void keep_newest_sass(char *text) {
  int newest = -1;
  for (const char *p = strstr(text, "code for sm_"); p; p = strstr(p + 1, "code for sm_")) {
    int n = atoi(p + strlen("code for sm_"));
    if (n > newest) newest = n;
  }
  if (newest < 0) return;
  char *out = text;
  int keep = 1; /* lines before the first section (headers) are kept: no kernel is there */
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
    const char *sec = strstr(line, "code for sm_");
    if (sec && sec < line + len) keep = atoi(sec + strlen("code for sm_")) == newest;
    if (keep) {
      memmove(out, line, len);
      out += len;
    }
    line += len;
  }
  *out = '\0';
}

static void usage(void) {
  fprintf(stderr,
          "usage: machine_code_check [--KIND=ERE]... FILE...\n"
          "  ERE selects kernels by (mangled) name that must issue KIND's instructions; KIND is one of:\n");
  for (int k = 0; k < NKINDS; k++) fprintf(stderr, "    --%s  %s\n", kinds[k].option, kinds[k].what);
  fprintf(stderr, "  FILE is .ptx, .resource_usage.txt, .o (SASS via cuobjdump) or .sass (cuobjdump's output)\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *want[NKINDS] = {0};
  struct option opts[NKINDS + 1];
  for (int k = 0; k < NKINDS; k++) opts[k] = (struct option){kinds[k].option, required_argument, 0, k};
  opts[NKINDS] = (struct option){0, 0, 0, 0};
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    if (c < 0 || c >= NKINDS) usage();
    want[c] = optarg;
  }
  if (optind >= argc) usage();
  rule ptx_rules[NKINDS], sass_rules[NKINDS];
  char ptx_what[NKINDS][96], sass_what[NKINDS][96];
  for (int k = 0; k < NKINDS; k++) {
    snprintf(ptx_what[k], sizeof ptx_what[k], "%s (PTX)", kinds[k].what);
    snprintf(sass_what[k], sizeof sass_what[k], "%s (SASS)", kinds[k].what);
    ptx_rules[k] = (rule){want[k], kinds[k].ptx, ptx_what[k]};
    sass_rules[k] = (rule){want[k], kinds[k].sass, sass_what[k]};
  }
  for (int i = optind; i < argc; i++) {
    const char *f = argv[i];
    size_t len = strlen(f);
    if (len > 2 && strcmp(f + len - 2, ".o") == 0) {
      const char *cuda = getenv("CUDA_PATH");
      char cmd[4096];
      snprintf(cmd, sizeof cmd, "'%s/bin/cuobjdump' --dump-sass '%s' 2>&1", cuda && *cuda ? cuda : "/usr/local/cuda",
               f);
      FILE *p = popen(cmd, "r");
      char *text = p ? slurp(p, f) : NULL;
      int rc = p ? pclose(p) : -1;
      if (rc != 0) {
        fprintf(stderr,
                "machine_code_check: `%s` failed (%d): %s\n  SASS checks need cuobjdump: set CUDA_PATH to a toolkit "
                "that has it\n",
                cmd, rc, text ? text : "");
        return 2;
      }
      keep_newest_sass(text);
      check_kernels(f, text, "Function : ", sass_rules, NKINDS, seen_sass);
      files_sass++;
      free(text);
      continue;
    }
    FILE *in = fopen(f, "r");
    if (!in) {
      fprintf(stderr, "machine_code_check: cannot open %s\n", f);
      return 2;
    }
    char *text = slurp(in, f);
    fclose(in);
    if (len > 5 && strcmp(f + len - 5, ".sass") == 0) {
      keep_newest_sass(text);
      check_kernels(f, text, "Function : ", sass_rules, NKINDS, seen_sass);
      files_sass++;
    } else if (len > 4 && strcmp(f + len - 4, ".ptx") == 0) {
      check_kernels(f, text, "^(\\.visible )?\\.entry ", ptx_rules, NKINDS, seen_ptx);
      files_ptx++;
    } else if (strstr(f, "resource_usage")) {
      check_spills(f, text);
    } else {
      fprintf(stderr, "machine_code_check: %s: unknown kind (want .ptx, .resource_usage.txt, .o or .sass)\n", f);
      return 2;
    }
    free(text);
  }
  for (int r = 0; r < NKINDS; r++) {
    if (files_ptx && ptx_rules[r].kernels && !seen_ptx[r]) {
      printf("no kernel in the PTX matches '%s' (%s): renamed or removed? Update the BUILD rule.\n",
             ptx_rules[r].kernels, ptx_rules[r].what);
      failures++;
    }
    if (files_sass && sass_rules[r].kernels && !seen_sass[r]) {
      printf("no kernel in the SASS matches '%s' (%s): renamed or removed? Update the BUILD rule.\n",
             sass_rules[r].kernels, sass_rules[r].what);
      failures++;
    }
  }
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
