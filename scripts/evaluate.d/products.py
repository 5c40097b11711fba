"""How the tenth round chose its products of features, on training seeds
only: greedy forward selection of pairwise products of the features, by
the log-loss of two-fold cross-validation (even and odd training seeds)
of a logistic model. Needs numpy and scikit-learn; pairs the model in use
scored under 0.001 are left out for speed (7 true pairs of 5,594
in the tenth round). The tenth round ran it on the eighth round's 21
features (`git show fb5111c:scripts/evaluate.d/features.py`): it chose
the 2015 score's log-odds times the log of the uncrowded days shared,
then the largest following share times the same.

   python3 products.py DIR CROWDED [STEPS]   (default seeds 1-10, 31-60,
   101-180 and crowded seeds 16-30)
"""
import itertools
import sys

import numpy as np
from features import FEATURES, TRAINING_SEEDS, undirected
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.preprocessing import StandardScaler


def training(d, crowded):
    sets = [(d, s, i % 2) for i, s in enumerate(TRAINING_SEEDS)]
    sets += [(crowded, s, i % 2) for i, s in enumerate(range(16, 31))]
    x, y, fold = [], [], []
    for w, s, f in sets:
        pairs, _ = undirected(f"{w}/s{s}/improved.json", f"{w}/s{s}/truth.json")
        for p in pairs.values():
            if p["x"] is not None and p["improved"] >= 0.001:
                x.append(p["x"])
                y.append(p["label"])
                fold.append(f)
    return StandardScaler().fit_transform(np.array(x)), np.array(y), np.array(fold)


def loss(z, y, fold, extra):
    a = np.column_stack([z] + extra) if extra else z
    total = 0.0
    for f in (0, 1):
        m = LogisticRegression(C=1.0, max_iter=2000).fit(a[fold != f], y[fold != f])
        total += log_loss(y[fold == f], m.predict_proba(a[fold == f])[:, 1], labels=[0, 1]) * (fold == f).sum()
    return total / len(y)


if __name__ == "__main__":
    z, y, fold = training(sys.argv[1], sys.argv[2])
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    chosen = []
    print(f"no product: {loss(z, y, fold, []):.5f}")
    for _ in range(steps):
        extra = [z[:, a] * z[:, b] for a, b in chosen]
        best = min((loss(z, y, fold, extra + [z[:, i] * z[:, j]]), (i, j))
                   for i, j in itertools.combinations_with_replacement(range(z.shape[1]), 2) if (i, j) not in chosen)
        chosen.append(best[1])
        print(f"+ {FEATURES[best[1][0]]} x {FEATURES[best[1][1]]}: {best[0]:.5f}")
