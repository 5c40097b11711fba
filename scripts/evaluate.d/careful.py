"""Careful owners' recall in detail, from improved mode's reports: by how
many accounts the owner plays (the careful multi-accounter of 2-3 accounts,
or more), by whether the two accounts are next to each other in the owner's
order (30-90 minutes apart) or further apart, and how many pairs were found
only as timing pairs (never on one address on one day); then by clique,
as a moderator sees them.
   careful.py DIR SEED...   (DIR/s{seed}/improved.json and truth.json from gen.sh)"""
import collections
import sys
from features import undirected

THRESHOLD = 0.5
d, seeds = sys.argv[1], sys.argv[2:]
n = collections.Counter()
for s in seeds:
    pairs, truth = undirected(f"{d}/s{s}/improved.json", f"{d}/s{s}/truth.json")
    for g in truth["groups"]:
        if g["style"] != "cautious":
            continue
        acc = g["accounts"]
        size = "2-3 accounts" if len(acc) <= 3 else "4 or more accounts"
        for i in range(len(acc)):
            for j in range(i + 1, len(acc)):
                k = (min(acc[i], acc[j]), max(acc[i], acc[j]))
                p = pairs.get(k)
                near = "next in order" if j == i + 1 else "further apart"
                for key in ((size, near), (size, "all"), ("all", "all")):
                    n[key + ("pairs",)] += 1
                    if p is not None and p["improved"] >= THRESHOLD:
                        n[key + ("found",)] += 1
                        if p["timing"] is not None:
                            n[key + ("timing",)] += 1
print("| owner | accounts | pairs | flagged | of them timing pairs | recall |")
print("|---|---|---|---|---|---|")
for size in ("2-3 accounts", "4 or more accounts", "all"):
    for near in ("next in order", "further apart", "all"):
        key = (size, near)
        if n[key + ("pairs",)]:
            t, f = n[key + ("pairs",)], n[key + ("found",)]
            print(f"| {size} | {near} | {t} | {f} | {n[key + ('timing',)]} | {f / t:.3f} |")

# Cliques: flags are per pair, a moderator sees cliques. Pairs whose two
# accounts end in one clique, and accounts in a clique with another account
# of their owner.
import json
c = collections.Counter()
for s in seeds:
    report = json.load(open(f"{d}/s{s}/improved.json"))
    truth = json.load(open(f"{d}/s{s}/truth.json"))
    clique_of = {m: i for i, q in enumerate(report["cliques"]) for m in q["members"]}
    for g in truth["groups"]:
        if g["style"] != "cautious":
            continue
        acc = g["accounts"]
        size = "2-3 accounts" if len(acc) <= 3 else "4 or more accounts"
        together = lambda a, b: a in clique_of and clique_of.get(b) == clique_of[a]
        for i, a in enumerate(acc):
            c[size, "accounts"] += 1
            c[size, "with another"] += any(together(a, b) for b in acc if b != a)
            for b in acc[i + 1:]:
                c[size, "pairs"] += 1
                c[size, "pairs in one clique"] += together(a, b)
print()
print("| owner | pairs in one clique | accounts in a clique with another of their owner |")
print("|---|---|---|")
for size in ("2-3 accounts", "4 or more accounts"):
    print(f"| {size} | {c[size, 'pairs in one clique']}/{c[size, 'pairs']} "
          f"| {c[size, 'with another']}/{c[size, 'accounts']} |")
