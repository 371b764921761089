"""bench/selection_issue_report.py on a small bench CSV and peers CSV written here: the targets'
verdicts (uniform and normal each against its own floor and 101-rank time), one call's counts
of kernels, CUB calls, memsets, copies and host syncs (or "—" without them), the fastest peer
(per rank count for many ranks; rows with errors skipped), the batched section's normal-like
input, the 1001-against-101 rule, the adversarial ratio (medians,
and many ranks where the adversarial set ran), and missing
shapes and files reported rather than crashed on."""
import csv
import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "selection_issue_report.py"
spec = importlib.util.spec_from_file_location("selection_issue_report", SCRIPT)
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

BENCH_FIELDS = ["section", "algorithm", "type", "distribution", "shape", "n", "k", "median_ms", "min_ms", "max_ms",
                "gbps", "floor_ms", "time_over_floor", "sort_ms", "speedup_vs_sort", "mismatches", "error", "auto_choice",
                "launches", "cub_calls", "memsets", "copies", "host_syncs"]


def bench_row(section, algorithm, type_, distribution, shape, n, k, ms, floor_ms=0.01, sort_ms=0.1, auto_choice="",
              counts=("", "", "", "", "")):
    """counts: launches, CUB calls, memsets, copies, host syncs of one call (empty: not counted)."""
    row = {"section": section, "algorithm": algorithm, "type": type_, "distribution": distribution, "shape": shape,
           "n": n, "k": k, "median_ms": ms, "min_ms": ms, "max_ms": ms, "gbps": 0, "floor_ms": floor_ms,
           "time_over_floor": ms / floor_ms, "sort_ms": sort_ms, "speedup_vs_sort": sort_ms / ms, "mismatches": 0,
           "error": "", "auto_choice": auto_choice}
    row.update(zip(["launches", "cub_calls", "memsets", "copies", "host_syncs"], counts))
    return row


def write(path, fields, rows, comment=None):
    with open(path, "w", newline="") as f:
        if comment:
            f.write(comment + "\n")
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def run(tmp_path, capsys, rows, peers=None):
    bench = tmp_path / "sel.csv"
    write(bench, BENCH_FIELDS, rows)
    argv = ["--bench", str(bench)]
    if peers is not None:
        write(tmp_path / "peers.csv", ["section", "peer", "type", "shape", "n", "median_ms", "min_ms", "max_ms",
                                       "floor_ms", "error"], peers, comment="# a machine line")
        argv += ["--peers", str(tmp_path / "peers.csv")]
    code = report.main(argv)
    return code, capsys.readouterr()


def line_of(text, label):
    return next(line for line in text.splitlines() if line.startswith(f"| {label} |"))


def test_verdicts_peers_and_adversarial_ratio(tmp_path, capsys):
    n20, n26 = 1 << 20, 1 << 26
    rows = [
        bench_row("single", "auto", "float", "uniform", "", n20, n20 // 2, 0.020, auto_choice="radix",
                  counts=(1, 0, 0, 0, 1)),
        bench_row("single", "auto", "float", "normal", "", n20, n20 // 2, 0.022),
        bench_row("single", "auto", "float", "all_equal", "", n20, n20 // 2, 0.050),
        bench_row("single", "auto", "float", "uniform", "", n20, 0, 0.001),  # k != n/2: ignored
        bench_row("single", "auto", "float", "uniform", "", 1 << 24, 1 << 23, 0.060, floor_ms=0.025),
        bench_row("multi", "auto", "float", "uniform", "101 ranks", n26, 101, 0.5),
        bench_row("multi", "auto", "float", "uniform", "101 ranks", 1 << 24, 101, 0.5, auto_choice="sampled-multi",
                  counts=(7, 1, 1, 3, 2)),
        bench_row("multi", "auto", "float", "normal", "101 ranks", 1 << 24, 101, 0.6, auto_choice="sort"),
        bench_row("multi", "auto", "float", "uniform", "1001 ranks", n26, 1001, 1.25),
        bench_row("batched", "auto", "double", "normal-like", "512x2^20", 1 << 20, 1 << 19, 2.0),
        bench_row("multi", "auto", "float", "uniform", "101 ranks", 1 << 22, 101, 0.060),
        bench_row("multi", "auto", "float", "bucket_killer", "101 ranks", 1 << 22, 101, 0.270),
        bench_row("multi", "auto", "float", "all_equal", "101 ranks", 1 << 22, 101, 0.150),
    ]
    peers = [
        {"section": "single", "peer": "torch.median", "type": "float", "shape": "2^20", "n": n20, "median_ms": 0.3,
         "min_ms": 0.3, "max_ms": 0.3, "floor_ms": 0.01, "error": ""},
        {"section": "single", "peer": "cupy.partition(n/2)", "type": "float", "shape": "2^20", "n": n20,
         "median_ms": 0.12, "min_ms": 0.12, "max_ms": 0.12, "floor_ms": 0.01, "error": ""},
        {"section": "multi", "peer": "torch.sort+gather", "type": "float", "shape": "101 ranks 2^24", "n": 1 << 24,
         "median_ms": 0.45, "min_ms": 0.45, "max_ms": 0.45, "floor_ms": 0.01, "error": ""},
        {"section": "multi", "peer": "torch.quantile(lower)", "type": "float", "shape": "1001 ranks 2^26",
         "n": n26, "median_ms": 0, "min_ms": 0, "max_ms": 0, "floor_ms": 0.01, "error": "too large"},
    ]
    code, out = run(tmp_path, capsys, rows, peers)
    assert code == 0
    median = line_of(out.out, "median, 2^20 float")
    # the normal row names no choice; one call's counts from the uniform row
    assert "| radix | 1 kernel, 1 sync | 20.0 µs / 22.0 µs |" in median and "| 2.00 |" in median
    assert "0.120 (cupy.partition(n/2))" in median  # the faster of the two peers
    assert median.endswith("| ≤ 25.0 µs | met |")
    assert line_of(out.out, "median, 2^24 float").endswith("| ≤ 2 x floor | not met |")  # 0.060 > 2 x 0.025
    assert line_of(out.out, "101 percentiles, 2^24 float").startswith(
        "| 101 percentiles, 2^24 float | sampled-multi / sort | 7 kernels + 1 CUB call, 1 memset, 3 copies, 2 syncs | "
        "0.500 / 0.600 |")
    assert "| 0.450 (torch.sort+gather) |" in line_of(out.out, "101 percentiles, 2^24 float")  # by ranks too
    assert line_of(out.out, "1001 percentiles, 2^26 float").startswith("| 1001 percentiles, 2^26 float | — | — |")
    assert "| — | ≤ 2 x the 101-rank time" in line_of(out.out, "1001 percentiles, 2^26 float")  # the error row
    assert line_of(out.out, "1001 percentiles, 2^26 float").endswith(
        "| ≤ 2 x the 101-rank time (1.000) | not met |")
    assert line_of(out.out, "batched, 512 x 2^20 double, k = n/2").endswith("| ≤ 2.400 | met |")
    assert "Not in this run: median, 2^28 float;" in out.out
    assert "| median | float | 2^20 | 20.0 µs | 50.0 µs (all_equal) | 2.50 | no |" in out.out
    # many ranks where the adversarial set ran (2^22), not where only uniform and normal did (2^24)
    assert "| 101 | float | 2^22 | 60.0 µs | 0.270 (bucket_killer) | 4.50 | no |" in out.out
    assert "| 101 | float | 2^24 |" not in out.out


def test_both_inputs_judged_each_against_its_own_floor_and_101_rank_time(tmp_path, capsys):
    n20, n24, n26 = 1 << 20, 1 << 24, 1 << 26
    rows = [
        # 1001 ranks: uniform 0.9 <= 2 x 0.5; normal 1.3 > 2 x 0.6
        bench_row("multi", "auto", "float", "uniform", "101 ranks", n26, 101, 0.5),
        bench_row("multi", "auto", "float", "normal", "101 ranks", n26, 101, 0.6),
        bench_row("multi", "auto", "float", "uniform", "1001 ranks", n26, 1001, 0.9),
        bench_row("multi", "auto", "float", "normal", "1001 ranks", n26, 1001, 1.3),
        # both meet: doubles 1.0 <= 2 x 0.5, 1.1 <= 2 x 0.6
        bench_row("multi", "auto", "double", "uniform", "101 ranks", n26, 101, 0.5),
        bench_row("multi", "auto", "double", "normal", "101 ranks", n26, 101, 0.6),
        bench_row("multi", "auto", "double", "uniform", "1001 ranks", n26, 1001, 1.0),
        bench_row("multi", "auto", "double", "normal", "1001 ranks", n26, 1001, 1.1),
        # 2 x floor: uniform 0.060 > 2 x 0.025, normal 0.045 <= 2 x 0.025 (its own floor)
        bench_row("single", "auto", "float", "uniform", "", n24, n24 // 2, 0.060, floor_ms=0.025),
        bench_row("single", "auto", "float", "normal", "", n24, n24 // 2, 0.045, floor_ms=0.025),
        # 25 us: both over
        bench_row("single", "auto", "float", "uniform", "", n20, n20 // 2, 0.030),
        bench_row("single", "auto", "float", "normal", "", n20, n20 // 2, 0.026),
    ]
    code, out = run(tmp_path, capsys, rows)
    assert code == 0
    assert line_of(out.out, "1001 percentiles, 2^26 float").endswith(
        "| ≤ 2 x the 101-rank time (1.000) | uniform met, normal not |")
    assert line_of(out.out, "1001 percentiles, 2^26 double").endswith("| ≤ 2 x the 101-rank time (1.000) | met |")
    assert line_of(out.out, "median, 2^24 float").endswith("| ≤ 2 x floor | normal met, uniform not |")
    assert line_of(out.out, "median, 2^20 float").endswith("| ≤ 25.0 µs | not met |")


def test_unreadable_files_are_an_error_not_a_crash(tmp_path, capsys):
    code = report.main(["--bench", str(tmp_path / "missing.csv")])
    assert code == 1
    assert "selection_issue_report: error:" in capsys.readouterr().err
