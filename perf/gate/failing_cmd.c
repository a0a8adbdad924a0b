/* gate failing: the verdicts of verdicts.json files that fail the gate, for ci/bless.sh, which refuses to bless a
 * round whose gate failed. Read as JSON: a grep line by line took a compact, cut or empty file for a round where
 * nothing failed. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/gate_cli.h"

/* "NAME: VERDICT" per failing verdict of path, or exit 2 naming the file and field. A verdict's "fails" decides (a
 * slower library reference does not fail); in files from before that field, slower and missing fail. */
static void print_failing(const char *path) {
  char err[1024];
  json_t *v = load_json_object(path, err, sizeof err);
  if (!v) {
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  json_t *list = json_object_get(v, "verdicts"), *e;
  if (!json_is_array(list)) {
    fprintf(stderr, "gate: %s: field verdicts: %s; give the verdicts.json a gate check wrote\n", path,
            list ? "not an array" : "missing");
    exit(EXIT_BAD_INPUT);
  }
  size_t i;
  json_array_foreach(list, i, e) {
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *verdict = json_string_value(json_object_get(e, "verdict"));
    json_t *fails = json_object_get(e, "fails");
    if (!name || !verdict || (fails && !json_is_boolean(fails))) {
      fprintf(stderr,
              "gate: %s: verdicts[%zu]: field %s: missing or not a %s; give the verdicts.json a gate check wrote\n",
              path, i,
              !name          ? "name"
                  : !verdict ? "verdict"
                             : "fails",
              !name || !verdict ? "string" : "true or false");
      exit(EXIT_BAD_INPUT);
    }
    if (fails ? json_is_true(fails) : !strcmp(verdict, "slower") || !strcmp(verdict, "missing"))
      printf("%s: %s\n", name, verdict);
  }
  json_decref(v);
}

int cmd_failing(options *o) {
  if (o->nrest < 1) usage("failing needs one or more VERDICTS.json");
  char buf[4096];
  for (int i = 0; i < o->nrest; i++) print_failing(user_path(o->rest[i], buf, sizeof buf));
  return EXIT_PASS;
}
