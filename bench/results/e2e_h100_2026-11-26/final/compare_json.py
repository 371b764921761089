import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
def rel(x, y): return abs(x - y) / max(1.0, abs(x))
print("coefficients max rel diff", max(rel(a["coefficients"][k], b["coefficients"][k]) for k in a["coefficients"]))
print("scale", a["scale"], b["scale"], "objective", a["objective"], b["objective"])
print("outliers equal", a["outliers"] == b["outliers"], len(a["outliers"]))
print("best_subset equal", a["best_subset"] == b["best_subset"])
ra, rb = a["robust_distances"], b["robust_distances"]
print("robust distances max rel diff", max(rel(x, y) for x, y in zip(ra, rb)), len(ra), len(rb))
print("outlier_map equal", a["outlier_map"] == b["outlier_map"])
same = [k for k in a if k in b and a[k] == b[k]]
print("keys differing", [k for k in a if k not in same])
