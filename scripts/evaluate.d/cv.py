"""Two-fold cross-validation of improved mode's features on training seeds:
fit on seeds 1-5 and score 6-10, then the reverse; flags at 0.5.
   python3 cv.py DIR   (DIR/s{1..10}/improved.json and truth.json, from gen.sh)
Used to choose features without looking at the held-out seeds 11-30."""
import collections
import math
import sys
from features import undirected
from fit import fit

FOLDS = [((1, 2, 3, 4, 5), (6, 7, 8, 9, 10)), ((6, 7, 8, 9, 10), (1, 2, 3, 4, 5))]


def main(d):
    rows = []
    for s in range(1, 11):
        pairs, _ = undirected(f"{d}/s{s}/improved.json", f"{d}/s{s}/truth.json")
        for p in pairs.values():
            if p["x"] is None:
                continue  # a timing pair, scored by the timing model
            rows.append((s, p["x"], p["label"], p["style"] if p["label"] else p["kind"]))
    n = collections.Counter()
    for train, test in FOLDS:
        w = fit([x for s, x, _, _ in rows if s in train], [1 if t else 0 for s, _, t, _ in rows if s in train])
        for s, x, label, kind in rows:
            if s not in test:
                continue
            z = w[0] + sum(a * b for a, b in zip(w[1:], x))
            flagged = 1 / (1 + math.exp(-max(min(z, 30), -30))) >= 0.5
            n["pos"] += label
            n[f"pos {kind}"] += label
            if flagged:
                n["tp" if label else "fp"] += 1
                n[f"{'tp' if label else 'fp'} {kind}"] += 1
    p = n["tp"] / max(n["tp"] + n["fp"], 1)
    r = n["tp"] / max(n["pos"], 1)
    print(f"precision {p:.3f} recall {r:.3f} F1 {2 * p * r / max(p + r, 1e-9):.3f}")
    print(f"careful {n['tp cautious']}/{n['pos cautious']}, households {n['fp household']}, "
          f"families {n['fp family_shared_computer']}, other false positives "
          f"{n['fp'] - n['fp household'] - n['fp family_shared_computer']}")


if __name__ == "__main__":
    main(sys.argv[1])
