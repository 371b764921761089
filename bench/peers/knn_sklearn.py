#!/usr/bin/python3
"""scikit-learn peer of bench/knn_cpu_bench.cpp (bench/results/KNN_CPU.md), on the same data.

  build/bench/bench_knn_cpu --write-data /tmp/knn_bench     # writes train.csv, query.csv, neighbors_robustfit.csv
  /usr/bin/python3 bench/peers/knn_sklearn.py /tmp/knn_bench --k 10 [--runs 3]

Times NearestNeighbors(n_neighbors=k, algorithm=A).fit(train).kneighbors(query) for A in brute and
kd_tree (n_jobs=None, scikit-learn's default), median of --runs, and checks that its neighbour
sets equal robust-fit's (as sets: the two break distance ties differently).
"""
import argparse
import time

import numpy as np
import sklearn
from sklearn.neighbors import NearestNeighbors

parser = argparse.ArgumentParser()
parser.add_argument("dir")
parser.add_argument("--k", type=int, default=10)
parser.add_argument("--runs", type=int, default=3)
args = parser.parse_args()
train = np.loadtxt(f"{args.dir}/train.csv", delimiter=",", skiprows=1)
query = np.loadtxt(f"{args.dir}/query.csv", delimiter=",", skiprows=1)
ours = np.loadtxt(f"{args.dir}/neighbors_robustfit.csv", delimiter=",", dtype=np.int64, ndmin=2)
print(f"sklearn {sklearn.__version__}, numpy {np.__version__}; n={len(train)} m={len(query)} d={train.shape[1]} k={args.k}")
print("algorithm,median_s,min_s,max_s,same_sets")
for algorithm in ["brute", "kd_tree"]:
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        _, idx = NearestNeighbors(n_neighbors=args.k, algorithm=algorithm).fit(train).kneighbors(query)
        times.append(time.perf_counter() - start)
    same = sum(set(a) == set(b) for a, b in zip(idx, ours))
    times.sort()
    print(f"{algorithm},{times[len(times) // 2]:.4f},{times[0]:.4f},{times[-1]:.4f},{same}/{len(query)}")
