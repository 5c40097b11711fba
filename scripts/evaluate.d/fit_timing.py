"""Fits the timing model (scoring/src/improved/timing.rs, TIME_MODEL) on the
timing pairs of training seeds: pairs that never shared an address on a day,
kept because a hidden account follows the other in time.
   python3 fit_timing.py DIR SEED...   (DIR/s{seed}/improved.json and truth.json)"""
import sys
from fit import fit, labelled

if __name__ == "__main__":
    d, seeds = sys.argv[1], sys.argv[2:]
    X, y = labelled(d, seeds, "timing")
    w = fit(X, y)
    print(f"# {len(X)} timing pairs, {sum(y)} true, seeds {' '.join(seeds)}")
    print(f"intercept: {w[0]:.3f},")
    print("weights: [" + ", ".join(f"{v:.3f}" for v in w[1:]) + "],")
