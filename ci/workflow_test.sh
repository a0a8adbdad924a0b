#!/usr/bin/env bash
# CPU test of the GitHub workflows' structure (ci/workflow_check.py, docs/ci.md "Pull requests from forks"):
#   1. the workflows of this repository pass the check (and actionlint, where it is installed);
#   2. the workflow of 2026-11-28, which ran pull requests' own copy of itself on the self-hosted runner (a
#      fork could delete its approval job: #56), fails it;
#   3. each way a pull request's run could get around the maintainer or near a token that writes fails it:
#      the approval dropped or weakened, a kept token, a secret, another commit, the trigger a fork edits,
#      the main branch's runners;
#   4. the main workflow's history commit step, run as it is in a clone whose main moved (another job's rows pushed
#      to the same history file): with the repository's .gitattributes (union merge) both jobs' rows land; without
#      it each retry rebases anew (the conflicted rebase aborted first), and no rebase is left stopped.
#
#   workflow_test.sh CHECK.py PR_WORKFLOW MAIN_WORKFLOW OLD_WORKFLOW ACTIONLINT_CONFIG GITATTRIBUTES
set -euo pipefail
check="$1" pr="$2" main="$3" old="$4" config="$5" gitattributes="$6"
work="${TEST_TMPDIR:-$(mktemp -d)}/workflow_test"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

out="$(python3 "$check" "$pr" "$main")" || fail "the workflows of this repository: $out"
echo "ok: the workflows of this repository pass"
if command -v actionlint >/dev/null; then
  actionlint -config-file "$config" "$pr" "$main" || fail "actionlint"
  echo "ok: actionlint"
else
  echo "note: actionlint is not installed here (Debian 12 has no package of it): not run; docs/ci.md says how"
fi

finds() {  # finds WHAT TEXT FILE...: the check fails saying TEXT
  local what="$1" text="$2" st=0
  shift 2
  out="$(python3 "$check" "$@")" || st=$?
  [ "$st" -eq 1 ] || fail "$what: exit $st, expected 1: $out"
  grep -qF -- "$text" <<<"$out" || fail "$what: the check does not say '$text': $out"
  echo "ok: $what: $(head -1 <<<"$out")"
}
finds "the workflow of 2026-11-28" "a self-hosted job triggered by pull_request, whose workflow file a fork edits" "$old"

mutant() {  # mutant NAME SED: a copy of the pull requests' workflow changed by SED
  sed "$2" "$pr" >"$work/$1.yml"
  cmp -s "$pr" "$work/$1.yml" && fail "$1: the change '$2' changed nothing (the workflow changed: update the test)"
  echo "$work/$1.yml"
}
finds "approval dropped" "without needing a job in an environment" \
  "$(mutant no_needs '/^    needs: approve-fork$/d')" "$main"
finds "approval not an environment" "without needing a job in an environment" \
  "$(mutant no_env '/^    environment: gpu-fork-pr$/d')" "$main"
finds "runs when the approval fails" "succeeded or was skipped" \
  "$(mutant always "s/(needs.approve-fork.result == 'success' || needs.approve-fork.result == 'skipped')/always()/")" "$main"
finds "credentials kept" "persist-credentials: false" "$(mutant creds '/persist-credentials: false/d')" "$main"
finds "another commit" "github.event.pull_request.head.sha" \
  "$(mutant ref 's/ref: ${{ github.event.pull_request.head.sha }}/ref: ${{ github.event.pull_request.head.ref }}/')" "$main"
finds "a secret" "names a secret" \
  "$(mutant secret 's|run: ci/gate.sh --artifacts=artifacts|run: ci/gate.sh --artifacts=artifacts ${{ secrets.TOKEN }}|')" "$main"
finds "a token that writes" "a token that can write" "$(mutant write '0,/      contents: read/s//      contents: write/')" "$main"
finds "the trigger a fork edits" "triggered by pull_request" "$(mutant trigger 's/^  pull_request_target:$/  pull_request:/')" "$main"
finds "the main branch's runners" "a pull request's code and a token that can write on the same runners" \
  "$(mutant labels 's/\[self-hosted, linux, gpu-pr\]/[self-hosted, linux, gpu]/')" "$main"
st=0; python3 "$check" >/dev/null 2>&1 || st=$?
[ "$st" -eq 2 ] || fail "no workflow given: exit $st"
echo ok

# 4. The history commit step, as gpu-perf.yml runs it (bash -e), after another job pushed its rows to the same file.
step="$(python3 - "$main" <<'PY'
import sys, yaml
for job in yaml.safe_load(open(sys.argv[1]))["jobs"].values():
    for s in job.get("steps", []):
        if s.get("name", "").startswith("Commit and push the new baselines/history rows"):
            print(s["run"])
            sys.exit(0)
sys.exit(1)
PY
)" || fail "gpu-perf.yml has no step that commits the history rows"
history_push() {  # history_push NAME ATTRIBUTES_FILE|"": the step in the second of two jobs; its status in $st
  local d="$work/$1" id=(-c user.name=t -c user.email=t@t)
  mkdir -p "$d/home" "$d/bin"
  # No git identity but the step's own, as on a runner; no waiting between retries.
  export HOME="$d/home" GIT_CONFIG_NOSYSTEM=1
  printf '#!/bin/sh\necho "sleep $*" >>"%s/sleeps"\n' "$d" >"$d/bin/sleep"
  chmod +x "$d/bin/sleep"
  git init -q --bare -b main "$d/origin.git"
  git clone -q "$d/origin.git" "$d/seed" 2>/dev/null
  mkdir -p "$d/seed/baselines/history" "$d/seed/ci"
  printf 'date,benchmark\n2026-11-27,x/a\n' >"$d/seed/baselines/history/test-gpu.csv"
  printf '#!/bin/sh\necho "Test GPU"\n' >"$d/seed/ci/gpu_model.sh"
  [ -z "$2" ] || cp "$2" "$d/seed/.gitattributes"
  git -C "$d/seed" add -A && git -C "$d/seed" "${id[@]}" commit -qm seed && git -C "$d/seed" push -q origin HEAD:main
  for j in a b; do git clone -q "$d/origin.git" "$d/$j"; done
  echo "2026-11-28,x/a,job a" >>"$d/a/baselines/history/test-gpu.csv"
  git -C "$d/a" "${id[@]}" commit -qam "job a" && git -C "$d/a" push -q origin HEAD:main
  echo "2026-11-28,x/a,job b" >>"$d/b/baselines/history/test-gpu.csv"
  set +e
  (cd "$d/b" && PATH="$d/bin:$PATH" GITHUB_SHA=0123456789abcdef0123 bash -e -c "$step") >"$d/step.log" 2>&1
  st=$?
  set -e
}
history_push union "$gitattributes"
rows="$(git -C "$work/union/origin.git" show main:baselines/history/test-gpu.csv)"
[ "$st" -eq 0 ] && [ "$rows" = $'date,benchmark\n2026-11-27,x/a\n2026-11-28,x/a,job a\n2026-11-28,x/a,job b' ] ||
  { cat "$work/union/step.log"; fail "the history step after another job's push: exit $st, main's rows: $rows"; }
[ "$(git -C "$work/union/origin.git" log -1 --format=%s main)" = "History of 0123456789ab on Test GPU [skip ci]" ] ||
  fail "the history commit's subject: $(git -C "$work/union/origin.git" log -1 --format=%s main)"
echo "ok: the history step after another job's push to the same file: both jobs' rows on main (.gitattributes: union)"
history_push text ""
[ "$st" -eq 1 ] && [ "$(grep -c "^CONFLICT" "$work/text/step.log")" -eq 3 ] && ! grep -q "unmerged files" "$work/text/step.log" &&
  [ ! -d "$work/text/b/.git/rebase-merge" ] && [ ! -d "$work/text/b/.git/rebase-apply" ] ||
  { cat "$work/text/step.log"; fail "a rebase that conflicts: exit $st; each retry must rebase anew, none left stopped"; }
echo "ok: a rebase that conflicts is aborted before each retry"
