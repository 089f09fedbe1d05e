#!/usr/bin/env bash
# Runs `tide scen --planner hierarchical` on every Moving AI .map/.scen pair and prints Markdown
# tables (the ones in docs/validation.md, "Hierarchical planner"): one row per family (the
# top-level folder: bg512, dao, maze512, ...), then one row per map.
# ratio = hierarchical path cost / exact path cost (Tide's exact field) per scenario row.
#
# Usage: scripts/hier_validation.sh [TIDE] [DATA_DIR] [-- extra tide scen options]
#   e.g. scripts/hier_validation.sh build/bin/tide ../shared/data/movingai -- --sector 32 --every 4
# Needs jq. Runs one map at a time (the exact fields use --threads, default 2).
set -euo pipefail
tide=${1:-build/bin/tide}
data=${2:-../shared/data/movingai}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
extra=("$@")
threads=${THREADS:-2}
if [ ! -d "$data" ]; then
  echo "SKIPPED: Moving AI data not found at $data" >&2
  exit 0
fi
command -v jq >/dev/null || { echo "hier_validation.sh: jq not found (scripts/install-deps.sh --test)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

start=$(date +%s)
while IFS= read -r map; do
  base=${map%.map}
  scen=$(ls "$map.scen" 2>/dev/null || ls "$base"-*.scen 2>/dev/null | head -n 1 || true)
  [ -n "$scen" ] || continue
  rel=${map#"$data"/}
  family=${rel%%/*}
  name=$(basename "$base")
  rc=0
  "$tide" scen --planner hierarchical --map "$map" --scen "$scen" --threads "$threads" --json "${extra[@]}" \
    >"$out/$family.$name.json" 2>"$out/$family.$name.err" || rc=$?
  if [ "$rc" -ge 2 ] || ! jq -e .rows "$out/$family.$name.json" >/dev/null 2>&1; then
    echo "hier_validation.sh: $rel: tide scen exited $rc: $(cat "$out/$family.$name.err")" >&2
    jq -n --arg f "$family" --arg m "$rel" '{family: $f, map: $m, failed: true, results: []}' >"$out/$family.$name.json"
    continue
  fi
  jq --arg f "$family" --arg m "$rel" '. + {family: $f, map: $m}' "$out/$family.$name.json" >"$out/tmp.json"
  mv "$out/tmp.json" "$out/$family.$name.json"
done < <(find "$data" -name '*.map' | sort)
elapsed=$(($(date +%s) - start))

# Per-row figures pooled over a family's maps (or one map): rated rows have a ratio (both planners
# reach the goal); mismatches are rows reachable for one planner only.
summarise='
  def median: sort | if length == 0 then 0 elif length % 2 == 1 then .[length / 2 | floor]
              else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def num: if type == "number" then . else null end;
  def fmt(d): . * pow(10; d) | round / pow(10; d);
  [.[].results[]] as $r
  | ([$r[].ratio | num | select(. != null)]) as $ratios
  | {rows: ($r | length),
     rated: ($ratios | length),
     mean: (if ($ratios | length) > 0 then ($ratios | add / length) else 1 end),
     worst: ($ratios | max // 1),
     over105: ([$ratios[] | select(. > 1.05)] | length),
     mismatch: ([$r[] | select((.exact == "inf") != (.computed == "inf"))] | length),
     q50: ([$r[].query_ms] | median),
     q95: ([$r[].query_ms] | sort | if length == 0 then 0 else .[(length - 1) * 0.95 | floor] end),
     built: (if ($r | length) > 0 then ([$r[].fields_built] | add / length) else 0 end),
     failed: ([.[] | select(.failed == true)] | length)}
  | "| \(.rows) | \(.mean | fmt(4)) | \(.worst | fmt(4)) | \(.over105) | \(.mismatch) | \(.q50 | fmt(3)) | \(.q95 | fmt(3)) | \(.built | fmt(1))\(if .failed > 0 then " | FAILED" else "" end) |"'

settings=$(jq -rs '.[0] | "sector \(.sector), portal limit \(.portal_limit), corridor \(.corridor), fill corners \(.fill_corners), cache \(.cache), every \(.every)"' \
  "$out"/*.json 2>/dev/null || echo "")
times=$(jq -rs '"exact fields \([.[].exact_ms // 0] | add / 1000 | round) s, hierarchical rows \([.[].hierarchical_ms // 0] | add / 1000 | round) s, graphs \([.[].graph_ms // 0] | add / 1000 * 10 | round / 10) s"' "$out"/*.json)
echo "Settings: $settings; $elapsed s in all ($times)."
echo
echo "| family | maps | rows | mean ratio | worst ratio | rows > 1.05 | unreachable mismatches | query ms median | query ms p95 | fields built (mean) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for family in $(ls "$out" | sed 's/\..*//' | sort -u); do
  maps=$(ls "$out/$family".*.json | wc -l)
  echo "| $family | $maps $(jq -rs "$summarise" "$out/$family".*.json)"
done
echo "| **all** | $(ls "$out"/*.json | wc -l) $(jq -rs "$summarise" "$out"/*.json)"
echo
echo "| map | rows | mean ratio | worst ratio | rows > 1.05 | unreachable mismatches | query ms median | query ms p95 | fields built (mean) |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "$out"/*.json; do
  echo "| $(jq -r .map "$f") $(jq -rs "$summarise" "$f")"
done
