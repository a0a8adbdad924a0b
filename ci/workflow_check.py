#!/usr/bin/env python3
"""Checks that no pull request can run code on a self-hosted runner without a maintainer's approval that
it cannot edit away, and that no such code shares a runner with a token that can write (docs/ci.md, "Pull
requests from forks"):

  1. a workflow triggered by `pull_request` has no self-hosted job: GitHub runs the pull request's own copy
     of it, so a fork could drop any approval written in it;
  2. a self-hosted job of a `pull_request_target` workflow (GitHub runs main's copy) needs an approval job
     in an environment, runs only when that job succeeded or was skipped (not a fork), holds a read-only
     token, names no secret, and checks out the pull request's head commit keeping no credentials;
  3. a job with a token that can write is never triggered by a pull request, and runs on runner labels that
     no pull request's job uses.

  workflow_check.py WORKFLOW.yml...   exit 0 when all hold; else 1, one line per finding; 2 on bad input.
"""
import sys

import yaml

PR_OWN_COPY = {"pull_request"}  # events whose workflow file comes from the pull request
PR_BASE_COPY = {"pull_request_target"}  # events whose workflow file comes from the base branch


def triggers(doc):
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return set(on)
    return set(on or {})


def labels(job):
    runs_on = job.get("runs-on", [])
    if isinstance(runs_on, dict):
        runs_on = runs_on.get("labels", [])
    return {runs_on} if isinstance(runs_on, str) else set(runs_on)


def writes(doc, job):
    perms = job.get("permissions", doc.get("permissions", "write-all"))
    if isinstance(perms, str):
        return perms != "read-all" and perms != "{}"
    return any(v == "write" for v in perms.values())


def text_of(node):
    return yaml.safe_dump(node, default_flow_style=True)


def check(path, doc, pr_labels, write_labels):
    found = []
    events = triggers(doc)
    jobs = doc.get("jobs") or {}
    for name, job in jobs.items():
        where = f"{path}: job {name}"
        hosted = "self-hosted" in labels(job)
        if writes(doc, job) and events & (PR_OWN_COPY | PR_BASE_COPY):
            found.append(f"{where}: a token that can write in a workflow a pull request triggers; give it "
                         "'permissions: contents: read'")
        if writes(doc, job) and hosted:
            write_labels.setdefault(frozenset(labels(job) - {"self-hosted", "linux"}), []).append(where)
        if not hosted:
            continue
        if events & PR_OWN_COPY:
            found.append(f"{where}: a self-hosted job triggered by pull_request, whose workflow file a fork "
                         "edits: use pull_request_target (gpu-perf-pr.yml) or a GitHub-hosted runner")
        if not events & PR_BASE_COPY:
            continue
        pr_labels.setdefault(frozenset(labels(job) - {"self-hosted", "linux"}), []).append(where)
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        approvals = [n for n in needs if (jobs.get(n) or {}).get("environment")]
        if not approvals:
            found.append(f"{where}: runs a pull request's code without needing a job in an environment with "
                         "required reviewers (approve-fork, environment gpu-fork-pr)")
        cond = str(job.get("if", ""))
        for a in approvals:
            if f"needs.{a}.result == 'success'" not in cond or "cancelled()" not in cond:
                found.append(f"{where}: its 'if' must let it run only when {a} succeeded or was skipped, never "
                             "when it failed, was rejected or cancelled")
        if "secrets." in text_of(job):
            found.append(f"{where}: names a secret in a job that runs a pull request's code")
        checkouts = [s for s in job.get("steps", []) if str(s.get("uses", "")).startswith("actions/checkout")]
        if not checkouts:
            found.append(f"{where}: checks out nothing, or not with actions/checkout")
        for s in checkouts:
            w = s.get("with") or {}
            if str(w.get("persist-credentials", True)).lower() != "false":
                found.append(f"{where}: actions/checkout keeps the token in .git/config: "
                             "set persist-credentials: false")
            if "github.event.pull_request.head.sha" not in str(w.get("ref", "")):
                found.append(f"{where}: check out ref github.event.pull_request.head.sha, the commit the "
                             "maintainer approved")
    return found


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    found, pr_labels, write_labels = [], {}, {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            print(f"workflow_check: {path}: {e}", file=sys.stderr)
            return 2
        if not isinstance(doc, dict) or "jobs" not in doc:
            print(f"workflow_check: {path}: not a workflow (no jobs)", file=sys.stderr)
            return 2
        found += check(path, doc, pr_labels, write_labels)
    for shared in set(pr_labels) & set(write_labels):
        found.append(f"{', '.join(pr_labels[shared])} and {', '.join(write_labels[shared])}: a pull request's "
                     f"code and a token that can write on the same runners ({', '.join(sorted(shared))}): "
                     "give the pull requests' runners a label of their own (gpu-pr)")
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
