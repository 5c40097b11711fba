"""An experiment, not part of the product: how many careful owners' pairs
can any model of these readings flag while flagging no household?
(EVALUATION.md, thirteenth round). Four-fold cross-validation by seed over
the training seeds; every pair gets the score of the fold that did not see
it; then, for each model, the figures at 0.5 and at the lowest fixed
threshold that flags at most 0, 6 and 12 household and family pairs over
the 120 seasons (0, 1 and 2 per 20 seasons). Needs numpy and scikit-learn.

   gen.sh BIN DIR -- 1..10 31..60 101..180
   python3 frontier.py DIR
   python3 frontier.py DIR --weigh-households 5   # households weigh 5 in the fit
"""
import collections
import sys

import numpy as np
from features import TRAINING_SEEDS
from moves_cv import rows
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

HOMES = ("household", "family_shared_computer")


def trees(depth, rounds):
    return lambda: HistGradientBoostingClassifier(
        max_depth=depth, learning_rate=0.05, max_iter=rounds, l2_regularization=1.0,
        random_state=0)


# name -> (model maker, with the twelfth round's five readings of the moves)
MODELS = {
    "logistic, the product's 22 features": (lambda: LogisticRegression(C=1.0, max_iter=5000), False),
    "logistic, 22 + 5 readings of the moves": (lambda: LogisticRegression(C=1.0, max_iter=5000), True),
    "trees (depth 4), 22": (trees(4, 400), False),
    "trees (depth 4), 22 + 5": (trees(4, 400), True),
    "trees (depth 6), 22 + 5": (trees(6, 800), True),
}


def matrix(rs, extra):
    return np.array([x + (g + c + m if extra else []) for x, g, c, m, _, _ in rs])


def out_of_fold(data, make, extra, homes_weight):
    """(score, label, kind or style) of every pair, scored by the fold that
    did not train on its seed."""
    out = []
    for test in [TRAINING_SEEDS[i::4] for i in range(4)]:
        train = [r for s in TRAINING_SEEDS if s not in test for r in data[s]]
        weight = [homes_weight if not r[4] and r[5] in HOMES else 1.0 for r in train]
        model = make().fit(matrix(train, extra), [r[4] for r in train], sample_weight=weight)
        rs = [r for s in test for r in data[s]]
        scores = model.predict_proba(matrix(rs, extra))[:, 1]
        out += [(p, r[4], r[5]) for r, p in zip(rs, scores)]
    return out


def figures(out, threshold):
    n = collections.Counter()
    for p, label, kind in out:
        n["pos"] += label
        n["careful"] += label and kind == "cautious"
        if p >= threshold:
            n["tp" if label else "fp"] += 1
            n["tp careful"] += label and kind == "cautious"
            n["homes"] += not label and kind in HOMES
    pr, rc = n["tp"] / max(n["tp"] + n["fp"], 1), n["tp"] / max(n["pos"], 1)
    return (f"{threshold:.4f} | {pr:.3f} | {rc:.3f} | {2 * pr * rc / max(pr + rc, 1e-9):.3f} | "
            f"{n['tp careful']}/{n['careful']} = {n['tp careful'] / max(n['careful'], 1):.3f} | {n['homes']}")


def main(d, homes_weight):
    data = {s: rows(d, s) for s in TRAINING_SEEDS}
    print("| model | households allowed | threshold | precision | recall | F1 | careful | households |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (make, extra) in MODELS.items():
        out = out_of_fold(data, make, extra, homes_weight)
        homes = sorted((p for p, label, kind in out if not label and kind in HOMES), reverse=True)
        print(f"| {name} | (at 0.5) | {figures(out, 0.5)} |")
        for allowed in (0, 6, 12):
            # Just above the (allowed+1)-th highest household's score.
            t = np.nextafter(homes[allowed], 2.0) if len(homes) > allowed else 0.0
            print(f"| {name} | {allowed} | {figures(out, t)} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    weight = float(args[args.index("--weigh-households") + 1]) if "--weigh-households" in args else 1.0
    main(args[0], weight)
