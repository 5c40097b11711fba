"""Fits improved mode's logistic model on training seeds: L2-regularised
logistic regression by Newton's method, pure Python.
   python3 fit.py DIR SEED...   (DIR/s{seed}/improved.json and truth.json)"""
import math
import sys
from features import FEATURES, undirected

L2 = 1.0


def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[c][c] != 0:
                f = M[r][c] / M[c][c]
                for k in range(c, n + 1):
                    M[r][k] -= f * M[c][k]
    return [M[i][n] / M[i][i] for i in range(n)]


def fit(X, y):
    n = len(X[0]) + 1
    w = [0.0] * n
    for _ in range(50):
        g = [0.0] * n
        H = [[0.0] * n for _ in range(n)]
        for x, t in zip(X, y):
            v = [1.0] + x
            z = sum(a * b for a, b in zip(w, v))
            p = 1 / (1 + math.exp(-max(min(z, 30), -30)))
            for i in range(n):
                g[i] += (p - t) * v[i]
                for j in range(n):
                    H[i][j] += p * (1 - p) * v[i] * v[j]
        for i in range(1, n):
            g[i] += L2 * w[i]
            H[i][i] += L2
        step = solve(H, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-8:
            break
    return w


def labelled(d, seeds, key):
    """The feature rows `key` ("x": ordinary pairs, "timing": timing pairs,
    each scored by its own model) of the seeds' pairs, and their labels."""
    X, y = [], []
    for s in seeds:
        pairs, _ = undirected(f"{d}/s{s}/improved.json", f"{d}/s{s}/truth.json")
        for p in pairs.values():
            if p[key] is not None:
                X.append(p[key])
                y.append(1 if p["label"] else 0)
    return X, y


if __name__ == "__main__":
    d, seeds = sys.argv[1], sys.argv[2:]
    X, y = labelled(d, seeds, "x")  # timing pairs: fit_timing.py
    w = fit(X, y)
    print(f"# {len(X)} pairs, {sum(y)} true, seeds {' '.join(seeds)}")
    print(f"intercept: {w[0]:.3f},")
    print("weights: [" + ", ".join(f"{v:.3f}" for v in w[1:]) + "],")
    for n, v in zip(FEATURES, w[1:]):
        print(f"#   {n}: {v:.3f}")
