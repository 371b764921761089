#!/usr/bin/env python3
"""Compares robust-fit's objectives (run_robustfit.py) with R's (fit_r.R), per shape and method.

Usage: compare.py SUITEDIR R.csv ROBUSTFIT.csv [ROBUSTFIT_BEFORE.csv]
A fit is 'equal' when |rf - R| <= 1e-9 * R (both found the same h-subset, up to rounding),
'below' / 'above' otherwise. Excess = rf / R - 1. Prints Markdown: the per-shape table, then
the fits above R one by one."""
import csv
import statistics
import sys
from collections import defaultdict

EQUAL = 1e-9


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    suite, r_path, rf_path = sys.argv[1:4]
    before_path = sys.argv[4] if len(sys.argv) > 4 else None
    shape = {row["file"]: row["shape"] for row in load(f"{suite}/manifest.csv")}
    r = {(row["file"], row["method"]): row for row in load(r_path)}
    before = defaultdict(list)
    if before_path:
        for row in load(before_path):
            before[(shape[row["file"]], row["method"])].append(float(row["seconds"]))
    groups = defaultdict(list)
    above = []
    for row in load(rf_path):
        key = (row["file"], row["method"])
        if key not in r:
            continue
        ref, obj = float(r[key]["objective"]), float(row["objective"])
        excess = obj / ref - 1 if ref > 0 else (0.0 if obj <= 0 else float("inf"))
        verdict = "equal" if abs(obj - ref) <= EQUAL * abs(ref) else ("below" if obj < ref else "above")
        groups[(shape[row["file"]], row["method"])].append((verdict, excess, float(row["seconds"]), float(r[key]["seconds"])))
        if verdict == "above":
            above.append((row["method"], row["file"], row["seed"], excess))
    head = "| method | shape | fits | below | equal | above | worst excess | best (most below) | median time rf [s] |"
    if before_path:
        head += " median time rf before [s] |"
    head += " median time R [s] |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    total = defaultdict(lambda: [0, 0, 0, 0, 0.0])
    for (s, m), rows in sorted(groups.items(), key=lambda kv: (kv[0][1] != "lts", kv[0][1], kv[0][0])):
        counts = {v: sum(1 for x in rows if x[0] == v) for v in ("below", "equal", "above")}
        worst = max(x[1] for x in rows)
        best = min(x[1] for x in rows)
        line = (f"| {m} | {s} | {len(rows)} | {counts['below']} | {counts['equal']} | {counts['above']} | "
                f"{100 * max(worst, 0):.3f} % | {100 * best:.3f} % | {statistics.median(x[2] for x in rows):.3f} |")
        if before_path:
            line += f" {statistics.median(before[(s, m)]):.3f} |"
        line += f" {statistics.median(x[3] for x in rows):.3f} |"
        print(line)
        t = total[m]
        t[0] += len(rows); t[1] += counts["below"]; t[2] += counts["equal"]; t[3] += counts["above"]
        t[4] = max(t[4], worst)
    print()
    for m, t in total.items():
        print(f"- {m}: {t[0]} fits, {t[1]} below R, {t[2]} equal, {t[3]} above "
              f"({100 * (t[1] + t[2]) / t[0]:.1f} % at or below R); worst excess {100 * max(t[4], 0):.3f} %")
    if above:
        print("\nFits above R:\n")
        for m, f, seed, e in sorted(above):
            print(f"- {m} {f} seed {seed}: +{100 * e:.4f} %")


if __name__ == "__main__":
    main()
