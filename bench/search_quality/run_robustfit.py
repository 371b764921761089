#!/usr/bin/env python3
"""Fits every data set of the search-quality suite with robust-fit (LTS, and LMS for n <= 5000)
at the given seeds and writes file,method,seed,seconds,search_seconds,objective as CSV.

Usage: run_robustfit.py SUITEDIR ROBUST_FIT OUT.csv [--seeds 0,1,2] [--methods lts,lms] [--max-n N]
                        [--backend cpu|cuda|auto] [-- extra fit arguments]
seconds is the fit's own total (timings_s.total: search, finish, MCD; not the CSV read);
search_seconds is the subsets + C-steps (LTS) or subsets + objectives + C-steps (LMS) part."""
import csv
import json
import subprocess
import sys


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    seeds = [0, 1, 2]
    if "--seeds" in args:
        i = args.index("--seeds")
        seeds = [int(s) for s in args[i + 1].split(",")]
        del args[i:i + 2]
    methods_wanted, max_n, backend = {"lts", "lms"}, float("inf"), "cpu"
    if "--backend" in args:
        i = args.index("--backend")
        backend = args[i + 1]
        del args[i:i + 2]
    if "--methods" in args:
        i = args.index("--methods")
        methods_wanted = set(args[i + 1].split(","))
        del args[i:i + 2]
    if "--max-n" in args:
        i = args.index("--max-n")
        max_n = float(args[i + 1])
        del args[i:i + 2]
    suite, binary, out = args
    with open(f"{suite}/manifest.csv") as f:
        manifest = list(csv.DictReader(f))
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "method", "seed", "seconds", "search_seconds", "objective"])
        for row in manifest:
            if float(row["n"]) > max_n:
                continue
            methods = [m for m in ["lts"] + (["lms"] if int(float(row["n"])) <= 5000 else []) if m in methods_wanted]
            for method in methods:
                for seed in seeds:
                    cmd = [binary, "fit", f"{suite}/{row['file']}", "-y", "y", "--method", method,
                           "--backend", backend, "--seed", str(seed), "-o", "json", *extra]
                    j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
                    t = j["timings_s"]
                    search = sum(t[k] or 0 for k in ("subsets", "objectives", "csteps"))
                    w.writerow([row["file"], method, seed, f"{t['total']:.4f}", f"{search:.4f}",
                                repr(j["objective"])])
                    f.flush()
                    print(row["file"], method, seed, j["objective"], file=sys.stderr)


if __name__ == "__main__":
    main()
