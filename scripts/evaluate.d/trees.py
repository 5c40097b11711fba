"""An experiment, not part of the product: improved mode's features
scored by gradient-boosted trees (monotone where the direction is plain)
against the logistic model, both fit on the same training seeds, compared
on held-out seeds of both worlds at 0.5 (EVALUATION.md, tenth round).
Needs numpy and scikit-learn (the product's fit.py needs neither). The
figures of EVALUATION.md were read with the eighth round's 21 features
(`git show fb5111c:scripts/evaluate.d/features.py`); the eleventh round's, with
its 22.

   gen.sh BIN DIR -- 1..100 101..180
   gen.sh BIN CROWDED --accounts 1200 --nat-crowd 25 -- 1..30
   python3 trees.py DIR CROWDED
   python3 trees.py DIR CROWDED --guards   # the eleventh round's guards

With --guards the trees also read the share of shared address-days that
were crowded, bound to lower the score (monotone), and/or are fit with
carrier-NAT strangers weighed five times (EVALUATION.md, eleventh round).
"""
import sys

import features
import numpy as np
from features import FEATURES, TRAINING_SEEDS, undirected
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

# +1: more reads more likely one person; -1: less; 0: left to the data.
MONOTONE = {"reference_max_log_odds": 1, "reference_min_log_odds": 1, "apart_rate": -1,
            "log_networks": 1, "log_uncrowded_ip_days": 1, "log_close": -1, "lead_share": 1,
            "following_ratio_max": 1, "long_following_ratio_max": 1}


def seasons(d, seeds):
    """Per seed: its undirected pairs, its true pairs and careful owners' pairs."""
    out = []
    for s in seeds:
        pairs, truth = undirected(f"{d}/s{s}/improved.json", f"{d}/s{s}/truth.json")
        size = [(len(g["accounts"]), g["style"]) for g in truth["groups"]]
        out.append((pairs, sum(n * (n - 1) // 2 for n, _ in size),
                    sum(n * (n - 1) // 2 for n, st in size if st == "cautious")))
    return out


def rows(data, nat_weight=1.0):
    xs = [(p["x"], p["label"], nat_weight if p["cause"] == "carrier_nat" else 1.0)
          for pairs, _, _ in data for p in pairs.values() if p["x"] is not None]
    return (np.array([x for x, _, _ in xs]), np.array([y for _, y, _ in xs]),
            np.array([w for _, _, w in xs]))


def with_crowded_share():
    """Makes `undirected` append the crowded share of shared address-days
    to each pair's features (the product's model dropped it in round 10)."""
    product = features.features

    def extended(ab, ba, s):
        return product(ab, ba, s) + [s["crowded_ip_days"] / max(s["shared_ip_days"], 1)]
    features.features = extended


def trees(monotone):
    return HistGradientBoostingClassifier(
        max_depth=3, learning_rate=0.05, max_iter=300, l2_regularization=1.0,
        monotonic_cst=monotone, early_stopping=False, random_state=0)


def report(name, data, model):
    flagged = tp = households = nat = careful = true = cautious = 0
    for pairs, t, c in data:
        true, cautious = true + t, cautious + c
        keys = [k for k, p in pairs.items() if p["x"] is not None]
        x = np.array([pairs[k]["x"] for k in keys]) if keys else np.zeros((0, len(FEATURES)))
        score = dict(zip(keys, model.predict_proba(x)[:, 1])) if keys else {}
        for k, p in pairs.items():
            if score.get(k, p["improved"]) < 0.5:  # timing pairs keep their own model's
                continue
            flagged += 1
            if p["label"]:
                tp += 1
                careful += p["style"] == "cautious"
            else:
                households += p["cause"] == "household"
                nat += p["cause"] == "carrier_nat"
    pr, rc = tp / max(flagged, 1), tp / true
    print(f"{name:40s} precision {pr:.3f} recall {rc:.3f} F1 {2 * pr * rc / (pr + rc):.3f} "
          f"households {households} carrier NAT {nat} careful {careful}/{cautious} = {careful / cautious:.3f}")


def main(d, crowded, guards):
    if guards:
        with_crowded_share()
    train = seasons(d, TRAINING_SEEDS) + seasons(crowded, range(16, 31))
    held = [("default 11-30", seasons(d, range(11, 31))), ("default 61-100", seasons(d, range(61, 101))),
            ("crowded 1-5", seasons(crowded, range(1, 6))), ("crowded 6-15", seasons(crowded, range(6, 16)))]
    monotone = [MONOTONE.get(f, 0) for f in FEATURES]
    if not guards:
        x, y, _ = rows(train)
        models = [("logistic", LogisticRegression(C=1.0, max_iter=5000).fit(x, y)),
                  ("trees", trees(monotone).fit(x, y))]
    else:
        models = []
        for crowd in (False, True):
            for nat_weight in (1.0, 5.0):
                x, y, w = rows(train, nat_weight)
                cst = monotone + [-1] if crowd else monotone
                x = x if crowd else x[:, :len(FEATURES)]
                name = f"trees{', crowded share' if crowd else ''}, carrier NAT x{nat_weight:g}"
                models.append((name, Columns(trees(cst).fit(x, y, sample_weight=w), x.shape[1])))
    for name, model in models:
        for set_name, data in held:
            report(f"{name}, {set_name}", data, model)


class Columns:
    """A model that reads the first `k` features of each row."""

    def __init__(self, model, k):
        self.model, self.k = model, k

    def predict_proba(self, x):
        return self.model.predict_proba(x[:, :self.k])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--guards" in sys.argv[3:])
