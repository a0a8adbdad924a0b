#!/usr/bin/env python3
"""The over-time chart's band is the gate's threshold (#57): for a main job run with --history, every benchmark
the run judged has, as its newest row, the threshold of its verdict (verdicts.json) in the trends the gate wrote
(trends.json), and each panel of its family's chart draws, at the newest run, a band from the tightest to the
widest of the thresholds of the run's rows there (a benchmark with no threshold applied, "unchanged" in A/B or
"new", has the one gate trends gives by its rule: max(tolerance, k x the row's noise)).

    band_check.py ARTIFACTS_DIR

ARTIFACTS_DIR: the main job's artifacts (perf/<test>/verdicts.json, trends.json, report/data/); run from the
repository root (trends.json names the history as the job gave it). Prints one line per family and "band_check: N benchmarks, M panels: the band is the threshold"; exit 1 on the first mismatch,
2 on bad input."""
import collections
import csv
import glob
import json
import os
import sys


def fail(msg, status=1):
    print("band_check: FAIL: " + msg)
    sys.exit(status)


def close(a, b, rel=1e-6):
    """Equal as written: the history keeps 9 significant digits, the chart's data files 6 (rel=1e-5)."""
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def newest_band(path):
    """The band at the newest run of each panel: the last 'x lo hi' line of each block (blank lines split)."""
    blocks, last = [], None
    for line in open(path):
        f = line.split()
        if not f:
            if last:
                blocks.append(last)
            last = None
            continue
        last = (int(f[0]), float(f[1]), float(f[2]))
    if last:
        blocks.append(last)
    return blocks


def main():
    if len(sys.argv) != 2:
        fail("usage: band_check.py ARTIFACTS_DIR", 2)
    art = sys.argv[1]
    try:
        trends = json.load(open(os.path.join(art, "trends.json")))
    except (OSError, ValueError) as e:
        fail("%s/trends.json: %s" % (art, e), 2)
    checked = panels_checked = 0
    for vf in sorted(glob.glob(os.path.join(art, "perf", "*_perf_test", "verdicts.json"))):
        v = json.load(open(vf))
        slug = None
        judged = [e for e in v["verdicts"] if "threshold" in e and e.get("verdict") not in ("new", "missing")]
        if not judged:
            continue
        name = v["gpu"]["name"]
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
        while "--" in slug:
            slug = slug.replace("--", "-")
        hist = [h for h in trends["histories"] if h["gpu"] == slug]
        if len(hist) != 1:
            fail("trends.json holds %d histories of %s" % (len(hist), slug))
        try:
            with open(hist[0]["history"], newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            fail("%s: %s (run from the repository root)" % (hist[0]["history"], e), 2)
        commit = v.get("run", {}).get("commit", "")
        series = collections.defaultdict(list)
        for s in hist[0]["series"]:
            series[s["benchmark"]].append(s)
        family = judged[0]["name"].split("/")[0]
        by_panel = collections.defaultdict(list)
        computed = 0
        for e in v["verdicts"]:
            cands = series.get(e["name"], [])
            if not cands:
                if e.get("verdict") == "missing":
                    continue
                fail("%s: no series of %s in trends.json" % (vf, e["name"]))
            # The run's row is the newest of all the benchmark's rows, whatever its flush or testbed series.
            newest = max((s["rows"][-1][0], s["rows"][-1][1], s["rows"][-1][2]) for s in cands)
            row = rows[newest[0] - 2] if 2 <= newest[0] < len(rows) + 2 else {}
            if row.get("commit") != commit or row.get("benchmark") != e["name"]:
                fail("%s: %s: the newest row of the history (line %d) is not this run's (commit %s): was the run "
                     "appended (ci/gate.sh --history, a passing job)?" % (vf, e["name"], newest[0], commit))
            if e in judged:
                if not newest[2] or not close(newest[1], e["threshold"]):
                    fail("%s: %s: trends.json row %d has threshold %.6g (%s), verdicts.json %.6g"
                         % (vf, e["name"], newest[0], newest[1], "recorded" if newest[2] else "computed",
                            e["threshold"]))
                checked += 1
            else:
                computed += 1  # unchanged (A/B) or new: no threshold applied; the gate's rule on its noise
            by_panel[e["name"].split("/", 2)[2]].append(100 * newest[1])
        band_file = os.path.join(art, "report", "data", "%s-%s-history.band.dat" % (slug, family))
        if not os.path.exists(band_file):
            fail("%s: no band data for %s" % (band_file, family))
        drawn = sorted((lo, hi) for _, lo, hi in newest_band(band_file))
        want = sorted((min(t), max(t)) for t in by_panel.values())
        if len(drawn) != len(want) or not all(close(a[0], b[0], 1e-5) and close(a[1], b[1], 1e-5) for a, b in zip(drawn, want)):
            fail("%s: the band at the newest run is %s, the verdicts' thresholds per panel %s" % (band_file, drawn, want))
        panels_checked += len(want)
        print("band_check: %s: %d judged with the verdict's threshold, %d without one (the gate's rule), %d panels: "
              "band %s %%" % (family, len(judged), computed, len(want), ", ".join("%.2f-%.2f" % p for p in want)))
    if not checked:
        fail("no judged benchmark under %s/perf" % art, 2)
    print("band_check: %d benchmarks judged, %d panels: the band is the threshold" % (checked, panels_checked))


if __name__ == "__main__":
    main()
