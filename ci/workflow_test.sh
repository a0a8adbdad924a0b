#!/usr/bin/env bash
# CPU test of the GitHub workflows' structure (ci/workflow_check.py, docs/ci.md "Pull requests from forks"):
#   1. the workflows of this repository pass the check (and actionlint, where it is installed);
#   2. the workflow of 2026-11-28, which ran pull requests' own copy of itself on the self-hosted runner (a
#      fork could delete its approval job: #56), fails it;
#   3. each way a pull request's run could get around the maintainer or near a token that writes fails it:
#      the approval dropped or weakened, a kept token, a secret, another commit, the trigger a fork edits,
#      the main branch's runners.
#
#   workflow_test.sh CHECK.py PR_WORKFLOW MAIN_WORKFLOW OLD_WORKFLOW ACTIONLINT_CONFIG
set -euo pipefail
check="$1" pr="$2" main="$3" old="$4" config="$5"
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
