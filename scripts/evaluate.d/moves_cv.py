"""An experiment, not part of the product: three readings of the move logs
that improved mode does not make, added to improved mode's 22 features and
compared by four-fold cross-validation by seed on the training seeds, at
0.5 (EVALUATION.md, twelfth round). Needs numpy and scikit-learn.

- shared games: games both accounts moved in (log), and moves of one
  directly after the other's in a shared game within two minutes (log);
- cross-network switches: in the two accounts' moves merged by time, the
  moves by one account within two hours after the other's, from another
  network (/24 for IPv4, the whole string otherwise) (log), and their
  share of all such switches;
- sitting length: the median length of each account's sittings (moves
  less than 30 minutes apart), in minutes (log), of the account whose
  sittings are longer.

   gen.sh BIN DIR -- 1..10 31..60 101..180
   python3 moves_cv.py DIR
"""
import collections
import datetime
import json
import math
import sys

import numpy as np
from features import TRAINING_SEEDS, undirected
from sklearn.linear_model import LogisticRegression

HORIZON = 7200
VARIANTS = {
    "the product's 22 features": lambda g, c, m: [],
    "+ shared games": lambda g, c, m: g,
    "+ cross-network switches": lambda g, c, m: c,
    "+ both": lambda g, c, m: g + c,
    "+ sitting length": lambda g, c, m: m,
}


def read_moves(path):
    """Per account: (second, network) sorted; per game: (second, account) sorted."""
    by_account, by_game = collections.defaultdict(list), collections.defaultdict(list)
    for line in open(path):
        m = json.loads(line)
        t = datetime.datetime.fromisoformat(m["timestamp_utc"]).timestamp()
        ip = m["ip"]
        by_account[m["username"]].append((t, ip.rsplit(".", 1)[0] if "." in ip else ip))
        by_game[m["game"]].append((t, m["username"]))
    for v in (*by_account.values(), *by_game.values()):
        v.sort()
    return by_account, by_game


def game_readings(by_game):
    shared, quick = collections.Counter(), collections.Counter()
    for moves in by_game.values():
        accounts = sorted({u for _, u in moves})
        for i, a in enumerate(accounts):
            for b in accounts[i + 1:]:
                shared[(a, b)] += 1
        for (t0, u0), (t1, u1) in zip(moves, moves[1:]):
            if u0 != u1 and t1 - t0 < 120:
                quick[(min(u0, u1), max(u0, u1))] += 1
    return shared, quick


def cross_readings(ma, mb):
    merged = sorted([(t, n, 0) for t, n in ma] + [(t, n, 1) for t, n in mb])
    same = cross = 0
    for (t0, n0, u0), (t1, n1, u1) in zip(merged, merged[1:]):
        if u0 != u1 and t1 - t0 < HORIZON:
            same, cross = (same + 1, cross) if n0 == n1 else (same, cross + 1)
    return [math.log1p(cross), cross / (same + cross + 1)]


def median_sitting(moves, gap=1800):
    """The median length in seconds of the sittings in `moves`."""
    lengths, start, last = [], None, None
    for t, _ in moves:
        if last is not None and t - last > gap:
            lengths.append(last - start)
            start = None
        start = t if start is None else start
        last = t
    lengths.append(last - start)
    lengths.sort()
    return lengths[len(lengths) // 2]


def rows(d, seed):
    pairs, _ = undirected(f"{d}/s{seed}/improved.json", f"{d}/s{seed}/truth.json")
    by_account, by_game = read_moves(f"{d}/s{seed}/moves.jsonl")
    shared, quick = game_readings(by_game)
    out = []
    for (a, b), p in pairs.items():
        if p["x"] is None:
            continue  # a timing pair, scored by the timing model
        games = [math.log1p(shared[(a, b)]), math.log1p(quick[(a, b)])]
        cross = cross_readings(by_account[a], by_account[b])
        longer = max(median_sitting(by_account[a]), median_sitting(by_account[b]))
        out.append((p["x"], games, cross, [math.log1p(longer / 60)], p["label"],
                    p["style"] if p["label"] else p["kind"]))
    return out


def main(d):
    data = {s: rows(d, s) for s in TRAINING_SEEDS}
    folds = [TRAINING_SEEDS[i::4] for i in range(4)]
    for name, extra in VARIANTS.items():
        n = collections.Counter()
        for test in folds:
            train = [r for s in TRAINING_SEEDS if s not in test for r in data[s]]
            X = np.array([x + extra(g, c, m) for x, g, c, m, _, _ in train])
            model = LogisticRegression(C=1.0, max_iter=5000).fit(X, [r[4] for r in train])
            rs = [r for s in test for r in data[s]]
            flagged = model.predict_proba(np.array([x + extra(g, c, m) for x, g, c, m, _, _ in rs]))[:, 1] >= 0.5
            for (_, _, _, _, label, kind), f in zip(rs, flagged):
                n["pos"] += label
                n[f"pos {kind}"] += label
                if f:
                    n["tp" if label else "fp"] += 1
                    n[f"{'tp' if label else 'fp'} {kind}"] += 1
        p, r = n["tp"] / max(n["tp"] + n["fp"], 1), n["tp"] / max(n["pos"], 1)
        homes = n["fp household"] + n["fp family_shared_computer"]
        print(f"{name}: precision {p:.3f} recall {r:.3f} F1 {2 * p * r / max(p + r, 1e-9):.3f} "
              f"careful {n['tp cautious']}/{n['pos cautious']} households and families {homes} "
              f"carrier NAT {n['fp carrier_nat']} other {n['fp'] - homes - n['fp carrier_nat']}")


if __name__ == "__main__":
    main(sys.argv[1])
