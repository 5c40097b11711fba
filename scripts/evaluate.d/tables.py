"""Markdown tables of EVALUATION.md from `detect eval --format json` files:
   tables.py WORK "DEFAULT SEEDS" "CROWDED SEEDS"   (WORK/{world}/s{seed}/{mode}.json)"""
import json
import statistics
import sys

work, seeds, crowded = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
MODES = ("reference", "improved")


def load(world, seed, mode):
    return json.load(open(f"{work}/{world}/s{seed}/{mode}.json"))


def ms(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{statistics.mean(xs):.3f} ± {sd:.3f} ({min(xs):.3f}-{max(xs):.3f})"


def summary(world, ss, title):
    print(f"### {title}\n")
    print("Mean ± standard deviation (min-max) over seeds " + ", ".join(ss) + ".\n")
    print("| mode | threshold | figures | precision | recall | F1 | recall of candidates |")
    print("|---|---|---|---|---|---|---|")
    for mode in MODES:
        es = [load(world, s, mode) for s in ss]
        for kind in ("undirected", "directed"):
            g = lambda k: [e[kind][k] for e in es]
            print(f"| {mode} | {es[0]['threshold']} | {kind} | {ms(g('precision'))} | {ms(g('recall'))} | "
                  f"{ms(g('f1'))} | {ms(g('recall_of_candidates'))} |")
    print()
    print("| mode | true pairs | flagged | tp | fp | never candidates | households | offices | carrier NAT | other | impure cliques |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for mode in MODES:
        es = [load(world, s, mode) for s in ss]
        t = lambda f: sum(f(e) for e in es)
        u = lambda k: t(lambda e: e["undirected"][k])
        fp = lambda k: t(lambda e: e["false_positives"][k])
        imp = t(lambda e: e["cliques"]["cliques"] - e["cliques"]["pure"])
        print(f"| {mode} | {u('true_pairs')} | {u('flagged')} | {u('tp')} | {u('fp')} | {u('missed_not_candidates')} | "
              f"{fp('household')} | {fp('office')} | {fp('carrier_nat')} | {fp('other')} | {imp} |")
    print("\nRecall per cheater style (undirected pairs flagged / true pairs, summed over seeds):\n")
    styles = [s["style"] for s in load(world, ss[0], "reference")["by_style"]]
    allst = []
    for s in ss:
        for st in load(world, s, "reference")["by_style"]:
            if st["style"] not in allst:
                allst.append(st["style"])
    print("| mode | " + " | ".join(allst) + " |")
    print("|---|" + "---|" * len(allst))
    for mode in MODES:
        cells = []
        for st in allst:
            tp = tot = 0
            for s in ss:
                for r in load(world, s, mode)["by_style"]:
                    if r["style"] == st:
                        tp += r["tp"]; tot += r["true_pairs"]
            cells.append(f"{tp}/{tot} = {tp / tot:.3f}" if tot else "-")
        print(f"| {mode} | " + " | ".join(cells) + " |")
    print()


def sweep(world, ss):
    print("### Threshold sweep (undirected, mean over seeds " + ", ".join(ss) + ")\n")
    print("| threshold | " + " | ".join(f"{m} P / R / F1" for m in MODES) + " |")
    print("|---|---|---|")
    ths = sorted({p["threshold"] for p in load(world, ss[0], "improved")["sweep"]})
    for th in ths:
        cells = []
        for mode in MODES:
            vals = {"precision": [], "recall": [], "f1": []}
            for s in ss:
                for p in load(world, s, mode)["sweep"]:
                    if abs(p["threshold"] - th) < 1e-9:
                        for k in vals:
                            vals[k].append(p[k])
            m = lambda k: (f"{statistics.mean([x for x in vals[k] if x is not None]):.3f}"
                           if any(x is not None for x in vals[k]) else "-")
            cells.append(f"{m('precision')} / {m('recall')} / {m('f1')}")
        print(f"| {th} | " + " | ".join(cells) + " |")
    print()


summary("default", seeds, "Default world (300 accounts, 28 days), held-out seeds")
sweep("default", seeds)
summary("crowded", crowded, "Crowded carrier-NAT world (1,200 accounts, 25 phone players per carrier address)")
