#!/usr/bin/env bash
# Simulates seeds and writes improved mode's full JSON report for each:
#   gen.sh BIN DIR [--nat-crowd N] -- SEED...
set -euo pipefail
bin=$1; dir=$2; shift 2
extra=()
while [ "$1" != "--" ]; do extra+=("$1"); shift; done; shift
for seed in "$@"; do
  out="$dir/s$seed"
  mkdir -p "$out"
  [ -f "$out/improved.json" ] && continue
  nice "$bin" simulate --seed "$seed" "${extra[@]}" --out "$out" >/dev/null
  nice "$bin" report --input "$out/moves.jsonl" --season 1 --all --format json --mode improved > "$out/improved.json"
done
