#!/usr/bin/env python3
"""torch peers of bench_knn_bench on the same shapes, in the same run on the device.

For every (m, n, d, k, precision) of the bench's CSV, once (leave-one-out and the 2^24 scale
shape excepted; the first shape name of the problem labels it): brute force in query tiles of 1024 and 4096, each tile by torch.cdist or by
the GEMM form |q|^2 + |x|^2 - 2 q x^T (clamped at 0; sqrt of the k selected), then
torch.topk(k, largest=False) (sorted). Reports every variant and the strongest per shape.
Data on the device (torch.rand), timing by CUDA events after a warm-up, median of --reps.

    python3 knn_peers.py --shapes knn.csv --out knn_peers.csv [--reps 5]
"""
import argparse
import csv
import statistics

import torch


def search(q, x, k, tile, form):
    x2 = (x * x).sum(1) if form == "gemm" else None
    outs = []
    for s in range(0, q.shape[0], tile):
        qt = q[s:s + tile]
        if form == "cdist":
            dist = torch.cdist(qt, x)
            vals, idx = torch.topk(dist, k, dim=1, largest=False)
        else:
            sq = (qt * qt).sum(1, keepdim=True) + x2[None, :] - 2.0 * (qt @ x.T)
            vals, idx = torch.topk(sq.clamp_min_(0), k, dim=1, largest=False)
            vals = vals.sqrt()
        outs.append((vals, idx))
    return outs


def time_ms(fn, reps):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    rows, seen = [], set()
    for r in csv.DictReader(open(args.shapes)):
        key = tuple(r[c] for c in ("precision", "m", "n", "d", "k"))
        # One torch timing per problem: the bench forces both filters on some shapes (same m, n, d, k).
        if r["loo"] == "0" and not r["shape"].startswith("scale") and key not in seen:
            seen.add(key)
            rows.append(r)
    print("torch", torch.__version__, torch.cuda.get_device_name(0), flush=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["shape", "precision", "m", "n", "d", "k", "variant", "median_ms", "min_ms", "max_ms"])
        for r in rows:
            m, n, d, k = (int(r[c]) for c in ("m", "n", "d", "k"))
            dtype = torch.float32 if r["precision"] == "float" else torch.float64
            gen = torch.Generator(device="cuda").manual_seed(m + n + d)
            q = torch.rand(m, d, device="cuda", dtype=dtype, generator=gen)
            x = torch.rand(n, d, device="cuda", dtype=dtype, generator=gen)
            results = []
            for form in ("cdist", "gemm"):
                for tile in (1024, 4096):
                    try:
                        med, lo, hi = time_ms(lambda: search(q, x, k, tile, form), args.reps)
                        results.append((med, f"{form}_{tile}", lo, hi))
                        w.writerow([r["shape"], r["precision"], m, n, d, k, f"{form}_{tile}", f"{med:.3f}", f"{lo:.3f}", f"{hi:.3f}"])
                    except torch.OutOfMemoryError:
                        torch.cuda.empty_cache()
            best = min(results)
            w.writerow([r["shape"], r["precision"], m, n, d, k, "best:" + best[1], f"{best[0]:.3f}", f"{best[2]:.3f}", f"{best[3]:.3f}"])
            f.flush()
            print(r["shape"], r["precision"], m, n, d, k, best[1], f"{best[0]:.2f} ms", flush=True)
            del q, x
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
