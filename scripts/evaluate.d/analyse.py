"""Quick look: model with given weights over seeds; P/R/F1, per style, FP causes."""
import json, math, sys
from collections import Counter, defaultdict
from features import undirected

def prob(w, x):
    z = w[0] + sum(a * b for a, b in zip(w[1:], x))
    return 1 / (1 + math.exp(-max(min(z, 30), -30)))

def run(d, seeds, w, t, verbose=False):
    tot = Counter(); style_tp = Counter(); style_all = Counter(); fp_cause = Counter()
    for s in seeds:
        pairs, truth = undirected(f"{d}/s{s}/improved.json", f"{d}/s{s}/truth.json")
        true_pairs = 0
        for g in truth["groups"]:
            n = len(g["accounts"]); true_pairs += n * (n - 1) // 2
            style_all[g["style"]] += n * (n - 1) // 2
        tot["true"] += true_pairs
        for k, p in pairs.items():
            if p["x"] is None:
                sc = p["improved"]  # a timing pair, as the timing model scored it
            else:
                sc = prob(w, p["x"]) if w else p["ref"]
            if p["label"]:
                tot["cand"] += 1
            if sc >= t:
                if p["label"]:
                    tot["tp"] += 1; style_tp[p["style"]] += 1
                else:
                    tot["fp"] += 1; fp_cause[p["kind"]] += 1
                    if verbose: print("FP", s, k, p["kind"], [round(v, 2) for v in p["x"] or p["timing"]], round(sc, 3))
            elif p["label"] and verbose:
                print("FN", s, k, p["style"], [round(v, 2) for v in p["x"] or p["timing"]], round(sc, 3))
    P = tot["tp"] / max(tot["tp"] + tot["fp"], 1); R = tot["tp"] / tot["true"]
    F = 2 * tot["tp"] / (2 * tot["tp"] + tot["fp"] + tot["true"] - tot["tp"])
    print(f"t={t} P={P:.3f} R={R:.3f} F1={F:.3f} tp={tot['tp']} fp={tot['fp']} true={tot['true']} candidates={tot['cand']}")
    print("  recall by style:", {k: f"{style_tp[k]}/{style_all[k]}" for k in style_all})
    print("  fp:", dict(fp_cause))

if __name__ == "__main__":
    d = sys.argv[1]; seeds = sys.argv[2].split(","); w = json.loads(sys.argv[3]) if sys.argv[3] != "ref" else None
    for t in map(float, sys.argv[4].split(",")):
        run(d, seeds, w, t, verbose=len(sys.argv) > 5)
