"""Improved mode's features, mirrored from scoring/src/improved/mod.rs
(`features`), and the pairs of a JSON report labelled by a truth.json."""
import json
import math

FEATURES = ["reference_max_log_odds", "reference_min_log_odds", "sitting_max", "sitting_min",
            "followed_max", "followed_min",
            "apart_rate", "log_networks", "log_uncrowded_ip_days",
            "return_share", "spaced_share", "turn_share", "log_close", "log_switches",
            "lead_share", "lead_share_squared", "following_ratio_max", "following_ratio_min",
            "long_following_ratio_max", "long_following_ratio_min",
            "reference_max_by_shared_days", "followed_max_by_shared_days"]

# The seeds improved mode's model is fit on (`fit.py`, `scripts/evaluate --fit`).
TRAINING_SEEDS = [*range(1, 11), *range(31, 61), *range(101, 181)]


def log_odds(p):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def features(ab, ba, s):
    def share(milli, n):
        return 0.0 if n == 0 else min(milli / 1000.0 / n, 1.0)
    sa = share(s["a_accompanied_milli"], s["a_buckets"])
    sb = share(s["b_accompanied_milli"], s["b_buckets"])
    fa = share(s["a_followed"] * 1000, s["a_sittings"])
    fb = share(s["b_followed"] * 1000, s["b_sittings"])
    fewer = max(min(s["a_buckets"], s["b_buckets"]), 1)
    uncrowded = max(s["shared_ip_days"] - s["crowded_ip_days"], 0)
    switches = max(s.get("switches", 0), 1)
    lead = abs(s.get("a_first", 0) - s.get("b_first", 0)) / (s.get("a_first", 0) + s.get("b_first", 0) + 2)
    days = math.log1p(s["shared_ip_days"])
    return [log_odds(max(ab, ba)), log_odds(min(ab, ba)), max(sa, sb), min(sa, sb), max(fa, fb), min(fa, fb),
            min(s["apart"] / fewer, 1.0), math.log1p(s["networks"]), math.log1p(uncrowded),
            s.get("returns", 0) / switches, s.get("spaced", 0) / switches, s.get("turns", 0) / switches,
            math.log1p(s.get("close", 0)), math.log1p(s.get("switches", 0)),
            lead, lead * lead] + following(s) + [log_odds(max(ab, ba)) * days, max(fa, fb) * days]


def following(s):
    """Mirror of scoring::improved::following_ratios (two hours, then
    four), in tens, larger first."""
    out = []
    for long in ("", "_long"):
        r = [llr(s.get(f"{x}_followed{long}", 0), s[f"{x}_sittings"],
                 s.get(f"{x}_followed{long}_by_chance_milli", 0) / 1000.0) for x in "ab"]
        out += [max(r) / 10.0, min(r) / 10.0]
    return out


def llr(k, n, chance):
    """Mirror of scoring::improved::timing::llr."""
    if n == 0:
        return 0.0
    f = k / n
    c = min(max(chance, 0.02), 0.98)

    def term(p, q):
        return p * math.log(p / q) if p > 0 else 0.0
    v = n * (term(f, c) + term(1 - f, 1 - c))
    return v if f > c else -v


def timing_features(s):
    """Mirror of scoring::improved::timing::features."""
    t = s["timing"]
    return [llr(t["followed"], t["sittings"], t["followed_by_chance_milli"] / 1000.0),
            llr(t["other_opened"], t["other_opened"] + t["hidden_opened"],
                t["other_opened_by_chance_milli"] / 1000.0),
            math.log1p(s.get("close", 0))]


def truth_index(truth):
    group, style = {}, {}
    for i, g in enumerate(truth["groups"]):
        for a in g["accounts"]:
            group[a] = i
            style[a] = g["style"]
    rank = {"household": 0, "office": 1, "carrier_nat": 2}
    sharing = {}
    for j, l in enumerate(truth.get("lookalikes", [])):
        kind = l["kind"]
        cause = "household" if kind in ("household", "family_shared_computer") else \
            "office" if kind in ("office", "university") else "carrier_nat"
        for a in l["accounts"]:
            sharing.setdefault(a, []).append((j, cause, kind))
    return group, style, sharing, rank


def cause(sharing, rank, a, b):
    sa, sb = sharing.get(a, []), sharing.get(b, [])
    cs = [(c, k) for (i, c, k) in sa for (j, _, _) in sb if i == j]
    if not cs:
        return ("other", "other")
    return min(cs, key=lambda x: rank[x[0]])


def undirected(report_path, truth_path):
    """Undirected pairs: dict (a, b) -> {ref, improved, x, label, style, cause, kind}."""
    rep = json.load(open(report_path))
    truth = json.load(open(truth_path))
    group, style, sharing, rank = truth_index(truth)
    by = {}
    for p in rep["pairs"]:
        a, b = p["account_a"], p["account_b"]
        key = (min(a, b), max(a, b))
        d = by.setdefault(key, {})
        d[(a, b)] = p
    out = {}
    for (a, b), d in by.items():
        ps = list(d.values())
        ref = [(q["sum"] / q["weight"]) / 2 + 0.5 for q in ps]
        ab = ref[0]
        ba = ref[1] if len(ref) > 1 else ref[0]
        s = ps[0]["evidence"].get("signals")
        same = a in group and b in group and group[a] == group[b]
        c, k = cause(sharing, rank, a, b)
        out[(a, b)] = {
            "ref": max(ref),
            "improved": max(q["similarity"] for q in ps),
            "x": features(ab, ba, s) if s and not s.get("timing") else None,
            "timing": timing_features(s) if s and s.get("timing") else None,
            "label": same,
            "style": style.get(a) if same else None,
            "cause": None if same else c,
            "kind": None if same else k,
        }
    return out, truth
