#!/usr/bin/env bash
# Runs `tide scen` and `tide verify` on every Moving AI .map/.scen pair and prints a Markdown
# table (the one in docs/validation.md). Usage: scripts/validate-movingai.sh [TIDE] [DATA_DIR]
set -euo pipefail
tide=${1:-build/bin/tide}
data=${2:-../shared/data/movingai}
if [ ! -d "$data" ]; then
  echo "SKIPPED: Moving AI data not found at $data" >&2
  exit 0
fi
echo "| map | size | rows | fields | failures | max abs error | max rel error | verify |"
echo "|---|---|---|---|---|---|---|---|"
total_rows=0
total_fail=0
worst_abs=0
while IFS= read -r map; do
  base=${map%.map}
  scen=$(ls "$map.scen" 2>/dev/null || ls "$base"-*.scen 2>/dev/null | head -n 1 || true)
  [ -n "$scen" ] || continue
  size=$(awk '{sub(/\r$/, "")} /^height/{h=$2} /^width/{w=$2} /^map/{print w "x" h; exit}' "$map")
  summary=$("$tide" scen --map "$map" --scen "$scen" | tail -n 1) || true
  rows=$(sed -E 's/.*rows=([0-9]+).*/\1/' <<<"$summary")
  fields=$(sed -E 's/.*fields=([0-9]+).*/\1/' <<<"$summary")
  fail=$(sed -E 's/.*failures=([0-9]+).*/\1/' <<<"$summary")
  abs=$(sed -E 's/.*max_abs_error=([^ ]+).*/\1/' <<<"$summary")
  rel=$(sed -E 's/.*max_rel_error=([^ ]+).*/\1/' <<<"$summary")
  if "$tide" verify --map "$map" --random-goals 3 --seed 7 >/dev/null 2>&1; then verify=OK; else verify=FAIL; fi
  echo "| ${map#"$data"/} | $size | $rows | $fields | $fail | $abs | $rel | $verify |"
  total_rows=$((total_rows + rows))
  total_fail=$((total_fail + fail))
  worst_abs=$(awk -v a="$worst_abs" -v b="$abs" 'BEGIN{print (b+0 > a+0) ? b : a}')
done < <(find "$data" -name '*.map' | sort)
echo
echo "total: $total_rows scenario rows, $total_fail failures, largest absolute error $worst_abs"
