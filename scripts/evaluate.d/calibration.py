"""Reliability of improved mode's score: per score band, the share of
undirected candidate pairs that were one person.
   calibration.py DIR SEED...   (DIR/s{seed}/improved.json from gen.sh)"""
import sys
from features import undirected

d, seeds = sys.argv[1], sys.argv[2:]
bands = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001]
rows = [[0, 0, 0.0] for _ in bands[:-1]]
for s in seeds:
    pairs, _ = undirected(f"{d}/s{s}/improved.json", f"{d}/s{s}/truth.json")
    for p in pairs.values():
        for i in range(len(bands) - 1):
            if bands[i] <= p["improved"] < bands[i + 1]:
                rows[i][0] += 1
                rows[i][1] += p["label"]
                rows[i][2] += p["improved"]
print("| score | pairs | mean score | share one person |")
print("|---|---|---|---|")
for i, (n, t, sc) in enumerate(rows):
    hi = min(bands[i + 1], 1.0)
    if n:
        print(f"| {bands[i]:.1f}-{hi:.1f} | {n} | {sc / n:.3f} | {t / n:.3f} |")
