#!/usr/bin/env python3
"""Times the selection peers on the GPU: torch.median, torch.topk(k=n/2), torch.kthvalue
(batched, dim=1), cupy.partition, many ranks (torch sort + gather, torch.quantile, cupy.partition
with every rank), and the one-pass floor (torch.amax), on the sizes and types
of bench/selection_bench.cu. CUDA events after warm-up; median / min / max of --runs calls;
inputs smaller than ~3x the L2 are rotated among copies. Writes CSV.

    python3 bench/peers/selection_peers.py --out peers.csv [--quick] [--runs 10]
"""
import argparse
import csv
import statistics
import sys

import torch

try:
    import cupy
except ImportError:  # CuPy is optional: its rows are skipped
    cupy = None

L2_ROTATION_BYTES = 180 << 20


def time_calls(fn, inputs, runs):
    for i in range(2):
        fn(inputs[i % len(inputs)])
    torch.cuda.synchronize()
    times = []
    for i in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(inputs[(i + 2) % len(inputs)])
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def rotated(make, nbytes):
    count = max(1, min(64, L2_ROTATION_BYTES // nbytes + 1))
    return [make() for _ in range(count)]


def single(rows, runs, quick):
    sizes = [20, 24] if quick else [20, 22, 24, 26, 28]
    for dtype, name in ((torch.float32, "float"), (torch.float64, "double")):
        for log_n in sizes:
            n = 1 << log_n
            inputs = rotated(lambda: torch.randn(n, device="cuda", dtype=dtype),
                             n * torch.tensor([], dtype=dtype).element_size())
            floor = time_calls(lambda x: torch.amax(x), inputs, runs)[0]
            cases = [
                ("torch.median", lambda x: torch.median(x)),
                ("torch.topk(n/2)", lambda x: torch.topk(x, n // 2, sorted=False)),
                ("torch.sort", lambda x: torch.sort(x)),
            ]
            if log_n <= 24:  # one thread block per row: pathological on one long vector
                cases.append(("torch.kthvalue", lambda x: torch.kthvalue(x, n // 2 + 1)))
            for label, fn in cases:
                try:
                    t = time_calls(fn, inputs, runs)
                    rows.append(["single", label, name, f"2^{log_n}", n, *t, floor, ""])
                except RuntimeError as error:  # out of memory or size limits
                    rows.append(["single", label, name, f"2^{log_n}", n, 0, 0, 0, floor, str(error)[:80]])
                    torch.cuda.empty_cache()
            if cupy is not None:
                cinputs = [cupy.asarray(x) for x in inputs]
                t = time_calls(lambda x: cupy.partition(x, n // 2), cinputs, runs)
                rows.append(["single", "cupy.partition(n/2)", name, f"2^{log_n}", n, *t, floor, ""])
                del cinputs
            del inputs
            torch.cuda.empty_cache()
            print(f"single {name} 2^{log_n} done", file=sys.stderr)


def spaced_ranks(n, count):
    """count ranks spread evenly over 0 .. n - 1, as the bench's multi section asks for."""
    return [round(i * (n - 1) / (count - 1)) for i in range(count)]


def multi(rows, runs, quick):
    """Many ranks of one vector: sort and gather (torch), cupy.partition with every rank, and
    torch.quantile where its input limit allows."""
    sizes = [24] if quick else [24, 26, 28]
    for dtype, name in ((torch.float32, "float"), (torch.float64, "double")):
        for log_n in sizes:
            n = 1 << log_n
            inputs = rotated(lambda: torch.randn(n, device="cuda", dtype=dtype),
                             n * torch.tensor([], dtype=dtype).element_size())
            floor = time_calls(lambda x: torch.amax(x), inputs, runs)[0]
            for count in (101, 1001) if log_n == 26 else (101,):
                ks = spaced_ranks(n, count)
                ks_t = torch.tensor(ks, device="cuda")
                qs = torch.tensor([k / (n - 1) for k in ks], device="cuda", dtype=dtype)
                cases = [
                    ("torch.sort+gather", lambda x: torch.sort(x).values[ks_t]),
                    ("torch.quantile(lower)", lambda x: torch.quantile(x, qs, interpolation="lower")),
                ]
                shape = f"{count} ranks 2^{log_n}"
                for label, fn in cases:
                    try:
                        t = time_calls(fn, inputs, runs)
                        rows.append(["multi", label, name, shape, n, *t, floor, ""])
                    except RuntimeError as error:  # out of memory or size limits (quantile: 2^24)
                        rows.append(["multi", label, name, shape, n, 0, 0, 0, floor, str(error)[:80]])
                        torch.cuda.empty_cache()
                if cupy is not None:
                    cinputs = [cupy.asarray(x) for x in inputs]
                    try:
                        t = time_calls(lambda x: cupy.partition(x, ks), cinputs, runs)
                        rows.append(["multi", "cupy.partition(ranks)", name, shape, n, *t, floor, ""])
                    except Exception as error:  # noqa: BLE001 (CuPy raises several kinds)
                        rows.append(["multi", "cupy.partition(ranks)", name, shape, n, 0, 0, 0, floor,
                                     str(error)[:80]])
                    del cinputs
            del inputs
            torch.cuda.empty_cache()
            print(f"multi {name} 2^{log_n} done", file=sys.stderr)


def batched(rows, runs, quick):
    for dtype, name in ((torch.float32, "float"), (torch.float64, "double")):
        for cols in (64, 512, 4096):
            for log_rows in (12, 16, 20):
                n = 1 << log_rows
                if cols * n > (1 << 29) or (quick and cols * n > (1 << 26)):
                    continue
                nbytes = cols * n * torch.tensor([], dtype=dtype).element_size()
                inputs = rotated(lambda: torch.randn(cols, n, device="cuda", dtype=dtype), nbytes)
                floor = time_calls(lambda x: torch.amax(x, dim=1), inputs, runs)[0]
                for label, fn in (
                    ("torch.kthvalue(dim=1)", lambda x: torch.kthvalue(x, n // 2 + 1, dim=1)),
                    ("torch.topk(n/2,dim=1)", lambda x: torch.topk(x, n // 2, dim=1, sorted=False)),
                ):
                    try:
                        t = time_calls(fn, inputs, runs)
                        rows.append(["batched", label, name, f"{cols}x2^{log_rows}", n, *t, floor, ""])
                    except RuntimeError as error:
                        rows.append(["batched", label, name, f"{cols}x2^{log_rows}", n, 0, 0, 0, floor,
                                     str(error)[:80]])
                        torch.cuda.empty_cache()
                del inputs
                torch.cuda.empty_cache()
                print(f"batched {name} {cols}x2^{log_rows} done", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rows = []
    single(rows, args.runs, args.quick)
    multi(rows, args.runs, args.quick)
    batched(rows, args.runs, args.quick)
    with open(args.out, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow([f"# {torch.cuda.get_device_name()} torch {torch.__version__}"
                      f" cupy {cupy.__version__ if cupy else 'absent'}"])
        out.writerow(["section", "peer", "type", "shape", "n", "median_ms", "min_ms", "max_ms",
                      "floor_ms", "error"])
        out.writerows(rows)


if __name__ == "__main__":
    main()
