#!/usr/bin/env python3
"""Issue 11's report (selection at the memory floor) from one run of bench_selection_bench and,
optionally, bench/peers/selection_peers.py in the same call on the same machine.

For every shape the issue names: what `auto` ran (the bench's auto_choice column: the library's
cuda_automatic.hpp), what one warm call of it asked of CUDA on the uniform input (kernels, CUB
calls, memsets, copies, host synchronisations: the bench's counts), its time (the uniform input, and the normal one where the section runs it),
its ratio to the one-pass floor of the same run, sort & choose, the fastest
peer on that shape, the issue's target and whether it is met (on both inputs where the section
runs both: "met", "not met", or which one meets it); then, per single-rank size and
per many-rank shape the bench runs on the adversarial set, the slowest distribution against
uniform (the issue: within 2 x). Standard library only.

    bench_selection_bench --sections single,multi,batched --out sel.csv
    python3 bench/peers/selection_peers.py --out peers.csv
    python3 bench/selection_issue_report.py --bench sel.csv [--peers peers.csv] > report.md
"""
import argparse
import csv
import sys

# (section, type, log2 n or batched shape, ranks, target kind, target value, label)
#   target kind: "ms" (at most that many ms), "floor" (at most that many x the floor),
#   "of101" (at most that many x the 101-rank time of the same type and size), None.
SHAPES = [
    ("single", "float", 28, 1, "ms", 0.35, "median, 2^28 float"),
    ("single", "double", 28, 1, "ms", 0.70, "median, 2^28 double"),
    ("single", "float", 24, 1, "floor", 2.0, "median, 2^24 float"),
    ("single", "double", 24, 1, None, None, "median, 2^24 double"),
    ("single", "float", 20, 1, "ms", 0.025, "median, 2^20 float"),
    ("single", "double", 20, 1, None, None, "median, 2^20 double"),
    ("multi", "float", 28, 101, "ms", 0.8, "101 percentiles, 2^28 float"),
    ("multi", "double", 28, 101, "ms", 1.5, "101 percentiles, 2^28 double"),
    ("multi", "float", 24, 101, "floor", 3.0, "101 percentiles, 2^24 float"),
    ("multi", "double", 24, 101, None, None, "101 percentiles, 2^24 double"),
    ("multi", "float", 26, 1001, "of101", 2.0, "1001 percentiles, 2^26 float"),
    ("multi", "double", 26, 1001, "of101", 2.0, "1001 percentiles, 2^26 double"),
    ("batched", "float", "512x2^20", 1, "ms", 1.2, "batched, 512 x 2^20 float, k = n/2"),
    ("batched", "double", "512x2^20", 1, "ms", 2.4, "batched, 512 x 2^20 double, k = n/2"),
]
ADVERSARIAL_LIMIT = 2.0


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def bench_key(row):
    """(section, type, size, ranks) of a bench row, k = n/2 rows only for single and batched."""
    section = row["section"]
    if section == "single":
        n = int(row["n"])
        if int(row["k"]) != n // 2:
            return None
        return section, row["type"], n.bit_length() - 1, 1
    if section == "multi":
        ranks = int(row["shape"].split()[0])
        return section, row["type"], int(row["n"]).bit_length() - 1, ranks
    if section == "batched":
        cols, rows = row["shape"].split("x")
        rows = 1 << int(rows[2:]) if rows.startswith("2^") else int(rows)
        if int(row["k"]) != rows // 2:
            return None
        return section, row["type"], row["shape"], 1
    return None


def index_bench(rows):
    """{(key, distribution, algorithm): row}, keeping the first of repeats."""
    table = {}
    for row in rows:
        key = bench_key(row)
        if key is not None and not row.get("error"):
            table.setdefault((key, row["distribution"], row["algorithm"]), row)
    return table


def peer_key(row):
    """(section, type, size, ranks) of a peer row: single shapes "2^N" become N, multi shapes
    "R ranks 2^N" become (N, R), batched shapes stay as they are (one rank a column)."""
    section, shape = row["section"], row["shape"]
    if section == "single" and shape.startswith("2^"):
        return section, row["type"], int(shape[2:]), 1
    if section == "multi":
        ranks, _, size = shape.split()
        return section, row["type"], int(size[2:]), int(ranks)
    return section, row["type"], shape, 1


def fastest_peers(rows):
    """{(section, type, size, ranks): (ms, peer)}."""
    best = {}
    for row in rows:
        if row.get("error") or not row.get("median_ms") or float(row["median_ms"]) <= 0:
            continue
        key = peer_key(row)
        ms = float(row["median_ms"])
        if key not in best or ms < best[key][0]:
            best[key] = (ms, row["peer"])
    return best


def ms(value):
    return f"{value:.3f}" if value >= 0.1 else f"{value * 1000:.1f} µs"


def verdict(kind, target, auto_ms, floor_ms, reference_ms):
    """The target's text (from the uniform input's numbers) and whether one input meets it."""
    if kind is None:
        return "", None
    if kind == "ms":
        return f"≤ {ms(target)}", auto_ms <= target
    if kind == "floor":
        return f"≤ {target:g} x floor", auto_ms <= target * floor_ms
    if reference_ms is None:
        return f"≤ {target:g} x the 101-rank time", None
    return f"≤ {target:g} x the 101-rank time ({ms(target * reference_ms)})", auto_ms <= target * reference_ms


def status(kind, met_uniform, met_normal):
    """"met" / "not met" over the inputs judged (uniform, and normal where it ran), else which
    one meets the target; "no 101-rank row" where the reference is missing."""
    if kind is None:
        return ""
    if met_uniform is None:
        return "no 101-rank row"
    if met_normal is None or met_normal == met_uniform:
        return "met" if met_uniform else "not met"
    return "uniform met, normal not" if met_uniform else "normal met, uniform not"


def choice(uniform, normal):
    """What auto ran on the uniform (and, where different, the normal) input; "—" for CSVs from
    before the bench recorded it."""
    names = [row.get("auto_choice") or "" for row in (uniform, normal) if row is not None]
    names = [name for i, name in enumerate(names) if name and name not in names[:i]]
    return " / ".join(names) if names else "—"


COUNTS = ("launches", "cub_calls", "memsets", "copies", "host_syncs")


def calls(row):
    """What one warm call of `auto` asked of CUDA (the bench's launches ... host_syncs columns):
    "1 kernel, 1 sync", "7 kernels + 1 CUB call, 3 copies, 1 sync"; "—" for CSVs without them."""
    if any(not (row.get(name) or "").strip() for name in COUNTS):
        return "—"
    launches, cub, memsets, copies, syncs = (int(row[name]) for name in COUNTS)

    def count(number, word, words=None):
        return f"{number} {word if number == 1 else words or word + 's'}"

    parts = [count(launches, "kernel") + (f" + {count(cub, 'CUB call')}" if cub else "")]
    if memsets:
        parts.append(count(memsets, "memset"))
    if copies:
        parts.append(count(copies, "copy", "copies"))
    parts.append(count(syncs, "sync"))
    return ", ".join(parts)


def shape_table(bench, peers):
    lines = ["| shape | `auto` ran | calls | `auto` uniform / normal (ms) | x floor | sort (ms) | fastest peer (ms) | target | |",
             "|---|---|---|---|---|---|---|---|---|"]
    missing = []
    for section, type_, size, ranks, kind, target, label in SHAPES:
        key = (section, type_, size, ranks)
        # The batched section's one input is "normal-like"; the others have uniform and normal.
        uniform = bench.get((key, "uniform", "auto")) or bench.get((key, "normal-like", "auto"))
        if uniform is None:
            missing.append(label)
            continue
        auto_ms, floor_ms = float(uniform["median_ms"]), float(uniform["floor_ms"])
        normal = bench.get((key, "normal", "auto"))
        both = ms(auto_ms) + (f" / {ms(float(normal['median_ms']))}" if normal else "")
        peer = peers.get(key)
        peer_text = f"{ms(peer[0])} ({peer[1]})" if peer else "—"
        # Each input against its own floor and its own 101-rank time.
        judged = []
        for distribution, row in (("uniform", uniform), ("normal", normal)):
            if row is None:
                judged.append(None)
                continue
            reference = bench.get(((section, type_, size, 101), distribution, "auto")) if kind == "of101" else None
            judged.append(verdict(kind, target, float(row["median_ms"]), float(row["floor_ms"]),
                                  float(reference["median_ms"]) if reference else None))
        goal = judged[0][0]
        met_normal = judged[1][1] if judged[1] is not None else None
        lines.append(f"| {label} | {choice(uniform, normal)} | {calls(uniform)} | {both} | {auto_ms / floor_ms:.2f} | {ms(float(uniform['sort_ms']))} | "
                     f"{peer_text} | {goal} | {status(kind, judged[0][1], met_normal)} |")
    return lines, missing


def adversarial_table(bench):
    """Single-rank medians at every size; many ranks where the bench ran more than uniform and
    normal data (its adversarial set)."""
    lines = ["| ranks | type | n | `auto` uniform (ms) | slowest distribution (ms) | ratio | within 2 x |",
             "|---|---|---|---|---|---|---|"]
    groups = {}
    for (key, distribution, algorithm), row in bench.items():
        if key[0] in ("single", "multi") and algorithm == "auto":
            groups.setdefault(key, {})[distribution] = float(row["median_ms"])
    for key in sorted(groups, key=lambda k: (k[0] != "single", k[3], k[1], k[2])):
        times = groups[key]
        if "uniform" not in times or (key[0] == "multi" and not set(times) - {"uniform", "normal"}):
            continue
        worst = max(times, key=times.get)
        ratio = times[worst] / times["uniform"]
        ranks = "median" if key[0] == "single" else str(key[3])
        lines.append(f"| {ranks} | {key[1]} | 2^{key[2]} | {ms(times['uniform'])} | {ms(times[worst])} ({worst}) | "
                     f"{ratio:.2f} | {'yes' if ratio <= ADVERSARIAL_LIMIT else 'no'} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, help="bench_selection_bench's CSV")
    parser.add_argument("--peers", help="selection_peers.py's CSV from the same call")
    args = parser.parse_args(argv)
    try:
        bench = index_bench(read_rows(args.bench))
        peers = fastest_peers(read_rows(args.peers)) if args.peers else {}
    except (OSError, KeyError, ValueError) as error:
        print(f"selection_issue_report: error: {error}", file=sys.stderr)
        return 1
    lines, missing = shape_table(bench, peers)
    print("\n".join(lines))
    if missing:
        print(f"\nNot in this run: {'; '.join(missing)}.")
    print()
    print("\n".join(adversarial_table(bench)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
