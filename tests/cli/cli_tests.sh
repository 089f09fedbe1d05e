#!/usr/bin/env bash
# Usage: cli_tests.sh CASE TIDE_BINARY WORK_DIR
# Each case asserts on outputs and exit codes; any failed assertion exits 1 with a message.
set -uo pipefail
case_name=$1
tide=$2
work=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)  # the repository, for its scripts
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# expect_fail "what" "pattern" cmd...: the command must exit non-zero and print the pattern on stderr.
expect_fail() {
  local what=$1 pattern=$2
  shift 2
  local err
  err=$("$@" 2>&1 >/dev/null) && fail "$what: expected a non-zero exit"
  grep -qE -- "$pattern" <<<"$err" || fail "$what: stderr '$err' does not match /$pattern/"
  echo "ok: $what -> $err"
}

write_map() {  # small weighted Tide map used by several cases
  cat >small.tmap <<'MAP'
tide-map 1
width 6
height 4
map
..F...
.##~..
.#....
......
MAP
}

case $case_name in
help)
  # Each subcommand's own help: its usage line and one option only it has.
  for spec in "run:--repeat INT" "field:--dist-csv TEXT" "scen:--scen TEXT REQUIRED" "verify:--random-goals INT" \
    "gen:--out TEXT REQUIRED" "render:--arrow-stride INT"; do
    c=${spec%%:*} opt=${spec#*:}
    out=$("$tide" $c --help) || fail "$c --help exits non-zero"
    grep -qE "^Usage: .*tide $c \[OPTIONS\]$" <<<"$out" || fail "$c --help has no 'Usage: tide $c [OPTIONS]' line: $out"
    grep -qE -- "^ +$opt( |$)" <<<"$out" || fail "$c --help does not list '$opt': $out"
  done
  expect_fail "unknown option" "unexpected|not expected|extra" "$tide" field --map x --goal 1,1 --bogus
  expect_fail "no subcommand" "subcommand" "$tide"
  ;;
field_csv)
  write_map
  "$tide" field --map small.tmap --goal 5,3 --dist-csv d.csv --next-csv n.csv >/dev/null || fail "field failed"
  [ "$(wc -l <d.csv)" -eq 4 ] || fail "dist csv must have 4 lines"
  [ "$(wc -l <n.csv)" -eq 4 ] || fail "next csv must have 4 lines"
  awk -F, 'NF!=6{exit 1}' d.csv || fail "dist csv rows must have 6 values"
  awk -F, 'NF!=6{exit 1}' n.csv || fail "next csv rows must have 6 values"
  # Goal (5,3): 0 and -1. Wall (1,1): inf and -1. Cell (4,3) steps east onto the goal: 1 and index 23.
  [ "$(sed -n 4p d.csv | cut -d, -f6)" = "0" ] || fail "goal value must be 0"
  [ "$(sed -n 4p n.csv | cut -d, -f6)" = "-1" ] || fail "goal next must be -1"
  [ "$(sed -n 2p d.csv | cut -d, -f2)" = "inf" ] || fail "wall value must be inf"
  [ "$(sed -n 2p n.csv | cut -d, -f2)" = "-1" ] || fail "wall next must be -1"
  [ "$(sed -n 4p d.csv | cut -d, -f5)" = "1" ] || fail "(4,3) must cost 1"
  [ "$(sed -n 4p n.csv | cut -d, -f5)" = "23" ] || fail "(4,3) must move to index 23"
  # (0,0) -> (5,3) by hand: down the left column and along the bottom row = 8 (every other route
  # crosses forest, swamp or a corner). (4,0): one diagonal and two straight moves = 2 + sqrt 2.
  [ "$(sed -n 1p d.csv | cut -d, -f1)" = "8" ] || fail "(0,0) must cost 8"
  v=$(sed -n 1p d.csv | cut -d, -f5)
  [ "$v" = "3.41421356" ] || fail "(4,0) must cost 3.41421356 with 9 digits, got '$v'"
  ;;
field_repeat)
  out=$("$tide" field --map @default --goal 54,18 --repeat 5) || fail "field --repeat failed"
  grep -qE '^build_ms_median=[0-9]+\.[0-9]+$' <<<"$out" || fail "no build_ms_median line in: $out"
  ;;
multi_goal)
  write_map
  "$tide" field --map small.tmap --goal 0,0 --goal 5,3 --dist-csv d.csv >/dev/null || fail "two goals failed"
  [ "$(sed -n 1p d.csv | cut -d, -f1)" = "0" ] || fail "first goal must be 0"
  [ "$(sed -n 4p d.csv | cut -d, -f6)" = "0" ] || fail "second goal must be 0"
  "$tide" verify --map small.tmap --goal 0,0 --goal 5,3 | grep -q OK || fail "verify of two goals"
  ;;
gen_verify)
  for seed in 1 2 3; do
    "$tide" gen --width 256 --height 256 --walls 0.20 --forest 0.15 --swamp 0.07 --seed $seed --out g$seed.tmap ||
      fail "gen seed $seed"
    "$tide" verify --map g$seed.tmap --random-goals 3 --seed $seed >v.txt || { cat v.txt; fail "verify seed $seed"; }
    "$tide" verify --map g$seed.tmap --random-goals 1 --seed $seed --diagonal 1.4 >/dev/null || fail "verify 1.4"
    "$tide" verify --map g$seed.tmap --random-goals 1 --seed $seed --connectivity 4 >/dev/null || fail "verify 4-dir"
  done
  # Same seed, same map; the fractions are roughly the requested ones.
  "$tide" gen --seed 1 --out again.tmap && cmp -s g1.tmap again.tmap || fail "gen is not deterministic"
  walls=$(tail -n 256 g1.tmap | tr -cd '#' | wc -c)
  [ "$walls" -gt 12500 ] && [ "$walls" -lt 13700 ] || fail "wall count $walls is not ~20% of 65536"
  expect_fail "gen fractions over 1" "exceeds 1" "$tide" gen --walls 0.9 --forest 0.2 --out x.tmap
  expect_fail "gen size 0" "outside 1..16384" "$tide" gen --width 0 --out x.tmap
  expect_fail "gen size 20000" "outside 1..16384" "$tide" gen --width 20000 --out x.tmap
  ;;
render)
  "$tide" render --map @default --goal 54,18 --png r.png >/dev/null || fail "render failed"
  [ "$(head -c 8 r.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "r.png is not a PNG"
  [ "$(stat -c %s r.png)" -gt 2000 ] || fail "r.png is suspiciously small"
  ;;
run)
  out=$("$tide" run --png run.png --repeat 5) || fail "run failed"
  grep -q "field build" <<<"$out" || fail "run prints no timing"
  [ -s run.png ] || fail "run wrote no picture"
  ;;
bad_inputs)
  write_map
  expect_fail "missing map file" "nope.map: cannot open" "$tide" field --map nope.map --goal 1,1
  expect_fail "goal on a wall" "goal \(1, 1\) is on a wall" "$tide" field --map small.tmap --goal 1,1
  expect_fail "goal outside" "goal \(9, 9\) is outside" "$tide" field --map small.tmap --goal 9,9
  expect_fail "malformed goal" "not of the form X,Y" "$tide" field --map small.tmap --goal 1x1
  expect_fail "bad diagonal" "outside 1..2" "$tide" field --map small.tmap --goal 0,0 --diagonal 3
  printf 'tide-map 1\nwidth 3\nheight 2\nmap\n...\n..\n' >short.tmap
  expect_fail "short row" "short.tmap:6: map row 1 has 2 characters, expected 3" "$tide" field --map short.tmap --goal 0,0
  printf 'type octile\nheight 2\nwidth 2\nmap\n..\n' >missing.map
  expect_fail "missing rows" "missing.map:5: map has 1 rows, the header says 2" "$tide" verify --map missing.map --goal 0,0
  printf 'type octile\nheight 1\nwidth 2\nmap\n.X\n' >char.map
  expect_fail "unknown char" "char.map:5: unknown terrain character 'X'" "$tide" field --map char.map --goal 0,0
  : >empty.map
  expect_fail "empty file" "empty.map:1: empty file" "$tide" field --map empty.map --goal 0,0
  head -c 600 /dev/urandom >garbage.map; printf '\0' >>garbage.map
  expect_fail "binary garbage" "garbage.map:[0-9]+: (unexpected|unknown)" "$tide" field --map garbage.map --goal 0,0
  printf 'version 1\n0\tsmall.tmap\t6\t4\t0\t0\t9\t9\t1.0\n' >outside.scen
  expect_fail "scen outside" "outside.scen:2: goal \(9, 9\) is outside" "$tide" scen --map small.tmap --scen outside.scen
  printf 'version 1\n0\tsmall.tmap\t6\t4\t0\tzero\t5\t3\t1.0\n' >nonnum.scen
  expect_fail "scen non-numeric" "nonnum.scen:2: start_y 'zero'" "$tide" scen --map small.tmap --scen nonnum.scen
  printf 'version 2\n' >version.scen
  expect_fail "scen version" "version.scen:1: expected 'version 1'" "$tide" scen --map small.tmap --scen version.scen
  ;;
scen_small)
  write_map
  # Optimal lengths worked out by hand (see field_csv): CRLF, a path in the map column, spaces, no final newline.
  printf 'version 1\r\n2\tmaps/small.tmap\t6\t4\t0\t0\t5\t3\t8.00000000\r\n0\tsmall.tmap\t6\t4\t4\t0\t5\t3\t3.41421356\r\n0 small.tmap 6 4 5 3 5 3 0' >ok.scen
  "$tide" scen --map small.tmap --scen ok.scen | grep -q "failures=0" || fail "scen with CRLF and no final newline"
  printf 'version 1\n0\tsmall.tmap\t6\t4\t0\t0\t5\t3\t%s\n' "99.5" >wrong.scen
  expect_fail "scen mismatch exits 1" "differ from the published" "$tide" scen --map small.tmap --scen wrong.scen
  "$tide" scen --map small.tmap --scen ok.scen --json | grep -q '"failures": 0' || fail "scen --json"
  ;;
scen_hier)
  # tide scen --planner hierarchical on a 64x64 map cut into 16x16 sectors: a wall at x = 32 with
  # one gap at the bottom, a closed box (both planners: unreachable, not a mismatch), forest.
  awk 'BEGIN { print "tide-map 1"; print "width 64"; print "height 64"; print "map"
    for (y = 0; y < 64; ++y) { row = ""
      for (x = 0; x < 64; ++x) {
        c = "."
        if (x == 32 && y < 60) c = "#"
        if (x >= 8 && x <= 20 && y >= 30 && y <= 50) c = "F"
        if ((x == 44 || x == 54) && y >= 10 && y <= 20) c = "#"
        if ((y == 10 || y == 20) && x >= 44 && x <= 54) c = "#"
        row = row c }
      print row } }' >h.tmap
  # Rows: across the wall through the gap, along it, start == goal, into the closed box, near the gap.
  printf 'version 1\n0\th.tmap\t64\t64\t2\t2\t60\t2\t1\n0\th.tmap\t64\t64\t2\t2\t2\t62\t1\n' >h.scen
  printf '0\th.tmap\t64\t64\t5\t5\t5\t5\t0\n0\th.tmap\t64\t64\t0\t0\t49\t15\t1\n' >>h.scen
  printf '0\th.tmap\t64\t64\t10\t40\t40\t61\t1\n0\th.tmap\t64\t64\t63\t0\t0\t63\t1\n' >>h.scen
  out=$("$tide" scen --planner hierarchical --sector 16 --map h.tmap --scen h.scen 2>err.txt) ||
    fail "scen --planner hierarchical failed: $(cat err.txt) $out"
  summary=$(grep '^summary: ' <<<"$out") || fail "no summary line in: $out"
  for key in planner=hierarchical rows=6 'mean_ratio=[0-9.]+' 'max_ratio=[0-9.]+' unreachable_mismatch=0 \
    'query_ms_median=[0-9.]+' 'first_field_ms_median=[0-9.]+' 'graph_ms=[0-9.]+' sector=16; do
    grep -qE "(^| )$key( |$)" <<<"$summary" || fail "summary has no $key: $summary"
  done
  [ "$(grep -cE '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ ' <<<"$out")" -eq 6 ] || fail "expected 6 row lines: $out"
  grep -qE '^5 5 5 5 0\.0+ 0\.0+ 1\.0+ ' <<<"$out" || fail "start == goal must cost 0 with ratio 1: $out"
  grep -qE '^0 0 49 15 inf inf ' <<<"$out" || fail "the closed box is unreachable for both: $out"
  "$tide" scen --planner hierarchical --sector 16 --map h.tmap --scen h.scen --json >h.json || fail "scen --json"
  command -v jq >/dev/null 2>&1 || fail "jq not found: run scripts/install-deps.sh --test (make test-deps)"
  jq -e '.planner == "hierarchical" and .rows == 6 and (.results | length) == 6 and .unreachable_mismatch == 0' \
    h.json >/dev/null || fail "h.json summary: $(jq -c 'del(.results)' h.json)"
  jq -e '[.results[] | has("computed") and has("exact") and has("ratio") and has("query_ms")] | all' h.json \
    >/dev/null || fail "h.json rows lack computed/exact/ratio/query_ms"
  # A route never beats the exact field; the mean and the max agree with the rows.
  jq -e '[.results[].ratio | numbers] | (min >= 1 - 1e-9) and (length == 5)' h.json >/dev/null ||
    fail "ratios: $(jq -c '[.results[].ratio]' h.json)"
  jq -e '(.max_ratio - ([.results[].ratio | numbers] | max) | fabs) < 1e-12' h.json >/dev/null || fail "max_ratio"
  jq -e '.results[0].exact > 58 and .results[0].exact < 200' h.json >/dev/null ||
    fail "(2,2) -> (60,2) goes round the wall through the gap: $(jq -c '.results[0]' h.json)"
  # --cache (rows sharing a goal share a field), --every 2 (rows 1, 3, 5), --corridor, --portal-limit.
  "$tide" scen --planner hierarchical --sector 16 --cache --map h.tmap --scen h.scen | grep -q "cache=yes" ||
    fail "--cache"
  "$tide" scen --planner hierarchical --sector 16 --every 2 --map h.tmap --scen h.scen | grep -q " rows=3 " ||
    fail "--every 2 must keep 3 rows"
  "$tide" scen --planner hierarchical --sector 32 --portal-limit 8 --corridor 1 --map h.tmap --scen h.scen \
    | grep -qE "portal_limit=8 corridor=1 .*unreachable_mismatch=0" || fail "--portal-limit 8 --corridor 1"
  "$tide" scen --planner hierarchical --sector 16 --settle 0 --map h.tmap --scen h.scen \
    | grep -qE "corridor=0 settle=0 .*unreachable_mismatch=0" || fail "--settle 0"
  "$tide" scen --planner hierarchical --sector 16 --map h.tmap --scen h.scen | grep -q "fill_corners=on " ||
    fail "corner fill is on by default"
  "$tide" scen --planner hierarchical --sector 16 --fill-corners off --map h.tmap --scen h.scen \
    | grep -qE "fill_corners=off .*unreachable_mismatch=0" || fail "--fill-corners off"
  expect_fail "scen --fill-corners maybe" "fill-corners" "$tide" scen --planner hierarchical --fill-corners maybe \
    --map h.tmap --scen h.scen
  "$tide" scen --help | grep -q "default: SectorConfig's, 28" || fail "scen --help gives the wrong portal limit default"
  "$tide" scen --planner hierarchical --sector 16 --corner-reach 4 --map h.tmap --scen h.scen \
    | grep -qE "fill_corners=on corner_reach=4 .*unreachable_mismatch=0" || fail "--corner-reach 4"
  "$tide" scen --planner hierarchical --sector 16 --corner-reach -2 --map h.tmap --scen h.scen >/dev/null 2>err.txt
  [ $? -eq 2 ] && grep -q "corner reach -2 is outside -1..16384" err.txt || fail "--corner-reach -2 must be refused: $(cat err.txt)"
  "$tide" scen --planner hierarchical --sector 16 --settle 17 --map h.tmap --scen h.scen >/dev/null 2>err.txt
  [ $? -eq 2 ] && grep -q "settle budget 17 is outside 0..16" err.txt || fail "--settle 17 must be refused"
  # --max-ratio: every ratio is at least 1, so 0.5 fails (exit 1); 1000 passes.
  "$tide" scen --planner hierarchical --sector 16 --max-ratio 1000 --map h.tmap --scen h.scen >/dev/null ||
    fail "--max-ratio 1000 must pass"
  "$tide" scen --planner hierarchical --sector 16 --max-ratio 0.5 --map h.tmap --scen h.scen >/dev/null 2>err.txt
  rc=$?
  [ "$rc" -eq 1 ] || fail "--max-ratio 0.5 must exit 1, got $rc"
  grep -qE "5 of 6 scenario rows have a ratio over --max-ratio 0.5" err.txt || fail "--max-ratio message: $(cat err.txt)"
  # Settings the library refuses: one clear line, exit 2 (1 means the check failed).
  for spec in "--sector 1000:sector size 1000 is outside 16..256" "--sector 8:sector size 8 is outside 16..256" \
    "--sector 16 --portal-limit 40:portal limit 40 is outside 1..16" "--corridor 9:corridor 9 is outside 0..4"; do
    opt=${spec%%:*} msg=${spec#*:}
    err=$("$tide" scen --planner hierarchical $opt --map h.tmap --scen h.scen 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 2 ] || fail "$opt must exit 2, got $rc: $err"
    grep -q "$msg" <<<"$err" || fail "$opt: '$err' does not say '$msg'"
    [ "$(wc -l <<<"$err")" -eq 1 ] || fail "$opt must print one line: $err"
    echo "ok: $opt -> $err"
  done
  err=$("$tide" scen --planner hierarchical --map nope.map --scen h.scen 2>&1 >/dev/null)
  [ $? -eq 2 ] || fail "a missing map must exit 2 with --planner hierarchical"
  expect_fail "hierarchical option with the exact planner" "--sector is only used with --planner hierarchical" \
    "$tide" scen --sector 16 --map h.tmap --scen h.scen
  expect_fail "unknown planner" "planner" "$tide" scen --planner astar --map h.tmap --scen h.scen
  expect_fail "--every 0" "--every 0 must be at least 1" "$tide" scen --every 0 --map h.tmap --scen h.scen
  ;;
field_edit)
  # --edit repairs the field in place: its CSVs equal a fresh build on the edited map.
  write_map
  "$tide" field --map small.tmap --goal 5,3 --edit 0,2,0,3=wall --edit 1,1,2,1=2 --edit 3,0,3,0=9 \
    --dist-csv ed.csv --next-csv en.csv >out.txt || fail "field --edit failed: $(cat out.txt)"
  cat >edited.tmap <<'MAP'
tide-map 1
width 6
height 4
legend 2 2
legend 9 9
map
..F9..
.22~..
##....
#.....
MAP
  "$tide" field --map edited.tmap --goal 5,3 --dist-csv fd.csv --next-csv fn.csv >/dev/null || fail "field on edited map"
  cmp -s ed.csv fd.csv || fail "dist csv after --edit differs from a fresh build: $(diff ed.csv fd.csv)"
  cmp -s en.csv fn.csv || fail "next csv after --edit differs from a fresh build: $(diff en.csv fn.csv)"
  "$tide" field --map small.tmap --goal 5,3 --dist-csv plain.csv >/dev/null || fail "field without edits"
  cmp -s plain.csv ed.csv && fail "the edits changed nothing in the dist csv"
  [ "$(grep -c '^edit ' out.txt)" -eq 3 ] || fail "expected 3 edit lines in: $(cat out.txt)"
  grep -qE '^edit 0,2,0,3=wall: changed=2 affected=[0-9]+ touched=[0-9]+ rebuilt=(yes|no) repair_ms=[0-9]+\.[0-9]+$' out.txt ||
    fail "edit line format: $(cat out.txt)"
  grep -qE '^edit 1,1,2,1=2: changed=2 ' out.txt || fail "1,1,2,1=2 changes two cells (it opens the wall at 2,1): $(cat out.txt)"
  # --repeat with edits prints both medians and still ends on the edited field.
  out=$("$tide" field --map small.tmap --goal 5,3 --edit 0,2,0,3=wall --edit 1,1,2,1=2 --edit 3,0,3,0=9 \
    --repeat 5 --dist-csv rd.csv) || fail "field --edit --repeat failed"
  grep -qE '^build_ms_median=[0-9]+\.[0-9]+$' <<<"$out" || fail "no build_ms_median line in: $out"
  grep -qE '^repair_ms_median=[0-9]+\.[0-9]+$' <<<"$out" || fail "no repair_ms_median line in: $out"
  cmp -s rd.csv fd.csv || fail "dist csv after --repeat rounds differs from a fresh build of the edited map"
  # A random 64x64 map: a long wall, a cleared square, a swamp strip over both (overlapping edits,
  # applied in order; big enough that repair rebuilds), then small edits repaired in place; against
  # a fresh build of the same edits written into the map by awk.
  "$tide" gen --width 64 --height 64 --seed 5 --out g.tmap || fail "gen"
  gx=$(sed -n 7p g.tmap | awk '{print index($0, ".") - 1}')  # the first plain cell of row 2
  [ "$gx" -ge 0 ] && [ "$gx" -lt 10 ] || fail "no plain cell left of column 10 in row 2 of g.tmap"
  "$tide" field --map g.tmap --goal $gx,2 --edit 10,0,10,60=wall --edit 20,20,40,40=1 --edit 30,5,35,50=6 \
    --edit 50,50,52,52=wall --edit 44,10,46,12=1 --edit 5,40,6,41=3 --edit 60,60,60,60=6 \
    --dist-csv gd.csv --next-csv gn.csv >out.txt 2>err.txt || fail "field --edit on g.tmap: $(cat err.txt)"
  grep -q "rebuilt=no" out.txt || fail "no edit was repaired in place: $(cat out.txt)"
  awk 'NR<=4 {print; next}
       { y = NR - 5; row = $0
         for (x = 0; x < 64; ++x) {
           c = substr(row, x + 1, 1)
           if (x == 10 && y <= 60) c = "#"
           if (x >= 20 && x <= 40 && y >= 20 && y <= 40) c = "."
           if (x >= 30 && x <= 35 && y >= 5 && y <= 50) c = "~"
           if (x >= 50 && x <= 52 && y >= 50 && y <= 52) c = "#"
           if (x >= 44 && x <= 46 && y >= 10 && y <= 12) c = "."
           if (x >= 5 && x <= 6 && y >= 40 && y <= 41) c = "F"
           if (x == 60 && y == 60) c = "~"
           out = out c }
         print out; out = "" }' g.tmap >g_edited.tmap
  "$tide" field --map g_edited.tmap --goal $gx,2 --dist-csv gfd.csv --next-csv gfn.csv >/dev/null || fail "edited g"
  cmp -s gd.csv gfd.csv || fail "64x64: dist csv after --edit differs from a fresh build"
  cmp -s gn.csv gfn.csv || fail "64x64: next csv after --edit differs from a fresh build"
  ;;
field_would_block)
  # A wall with one gap: stamping the gap cuts the right side off; a stamp elsewhere does not.
  cat >gap.tmap <<'MAP'
tide-map 1
width 9
height 5
map
....#....
....#....
.........
....#....
....#....
MAP
  "$tide" field --map gap.tmap --goal 0,2 --dist-csv before.csv >/dev/null || fail "field on gap.tmap"
  out=$("$tide" field --map gap.tmap --goal 0,2 --would-block 4,2,4,2 --dist-csv after.csv) || fail "would-block gap"
  grep -qx 'blocks=yes' <<<"$out" || fail "closing the gap must block: $out"
  grep -qx 'cut_off_cells=20' <<<"$out" || fail "closing the gap cuts off the 20 cells right of the wall: $out"
  cmp -s before.csv after.csv || fail "--would-block changed the field"
  out=$("$tide" field --map gap.tmap --goal 0,2 --would-block 6,0,7,1) || fail "would-block elsewhere"
  grep -qx 'blocks=no' <<<"$out" || fail "a stamp away from the gap must not block: $out"
  grep -qx 'cut_off_cells=0' <<<"$out" || fail "no cell is cut off: $out"
  grep -q 'cut_off_spawns' <<<"$out" && fail "cut_off_spawns without --spawn: $out"
  # With spawns: only they count.
  out=$("$tide" field --map gap.tmap --goal 0,2 --would-block 4,2,4,2 --spawn 1,1 --spawn 8,4) || fail "with spawns"
  grep -qx 'blocks=yes' <<<"$out" && grep -qx 'cut_off_spawns=1' <<<"$out" || fail "spawn (8,4) is cut off: $out"
  out=$("$tide" field --map gap.tmap --goal 0,2 --would-block 4,2,4,2 --spawn 1,1) || fail "spawn on the goal side"
  grep -qx 'blocks=no' <<<"$out" && grep -qx 'cut_off_spawns=0' <<<"$out" || fail "spawn (1,1) keeps its path: $out"
  # After an edit that already closes the gap at (4,2)... the query sees the edited field.
  out=$("$tide" field --map gap.tmap --goal 0,2 --edit 4,2,4,2=wall --would-block 6,0,6,0) || fail "edit + would-block"
  grep -qx 'blocks=no' <<<"$out" && grep -qx 'cut_off_cells=0' <<<"$out" || fail "nothing left to cut off: $out"
  expect_fail "would-block off the map" "--would-block '4,2,9,2'.*outside the 9x5 map" \
    "$tide" field --map gap.tmap --goal 0,2 --would-block 4,2,9,2
  expect_fail "would-block malformed" "--would-block '4,2,4' is not of the form X0,Y0,X1,Y1" \
    "$tide" field --map gap.tmap --goal 0,2 --would-block 4,2,4
  expect_fail "spawn off the map" "--spawn '9,9'.*outside" \
    "$tide" field --map gap.tmap --goal 0,2 --would-block 4,2,4,2 --spawn 9,9
  expect_fail "spawn without would-block" "--spawn is only used with --would-block" \
    "$tide" field --map gap.tmap --goal 0,2 --spawn 1,1
  ;;
field_class)
  # Moving AI map with a lake: water units cross it, land units go around.
  printf 'type octile\nheight 5\nwidth 7\nmap\n.......\n.WWWWW.\n.WWWWW.\n.WWWWW.\n.......\n' >lake.map
  "$tide" field --map lake.map --goal 3,0 --dist-csv land.csv >/dev/null || fail "field on lake.map"
  "$tide" field --map lake.map --goal 3,0 --class water --dist-csv water.csv >out.txt || fail "field --class water"
  grep -q "class 'water' size 1" out.txt || fail "the summary names the class: $(cat out.txt)"
  land=$(sed -n 5p land.csv | cut -d, -f4)
  water=$(sed -n 5p water.csv | cut -d, -f4)
  [ "$water" = "4" ] || fail "water: (3,4) -> (3,0) straight across the lake costs 4, got $water"
  awk -v a="$water" -v b="$land" 'BEGIN{exit !(a < b)}' || fail "water ($water) must be cheaper than land ($land)"
  # Size 2: the 1-cell gap in the wall is closed, the right side unreachable.
  printf 'tide-map 1\nwidth 9\nheight 5\nmap\n....#....\n....#....\n.........\n....#....\n....#....\n' >gap.tmap
  "$tide" field --map gap.tmap --goal 0,0 --dist-csv s1.csv >/dev/null || fail "size 1"
  "$tide" field --map gap.tmap --goal 0,0 --size 2 --dist-csv s2.csv >/dev/null || fail "size 2"
  [ "$(sed -n 1p s1.csv | cut -d, -f7)" != "inf" ] || fail "size 1 reaches (6,0) through the gap"
  [ "$(sed -n 1p s2.csv | cut -d, -f7)" = "inf" ] || fail "size 2 must not pass the 1-cell gap: $(sed -n 1p s2.csv)"
  "$tide" field --map gap.tmap --goal 0,0 --class default --size 1 --dist-csv s1b.csv >/dev/null || fail "default 1"
  cmp -s s1.csv s1b.csv || fail "--class default --size 1 must equal no option"
  # scen: the costs of another class are reported, not compared (the lengths are the default class's).
  printf 'version 1\n0\tlake.map\t7\t5\t3\t4\t3\t0\t99\n' >lake.scen
  out=$("$tide" scen --map lake.map --scen lake.scen --class water) || fail "scen --class water must not compare"
  grep -q "compared=no" <<<"$out" && grep -q "^3 4 3 0 4.00000000$" <<<"$out" || fail "scen --class output: $out"
  grep -q "MISMATCH" <<<"$out" && fail "scen --class compared: $out"
  expect_fail "scen default still compares" "differ from the published" "$tide" scen --map lake.map --scen lake.scen
  "$tide" scen --help | grep -q -- "--class" || fail "scen --help has no --class"
  "$tide" scen --help | grep -q "optimal lengths are" || fail "scen --help does not explain the class rule"
  # verify checks class fields against the class's costs; sim plans on them.
  "$tide" verify --map lake.map --goal 3,0 --class water | grep -q "OK" || fail "verify --class water"
  "$tide" verify --map gap.tmap --random-goals 3 --size 2 | grep -q "size 2" || fail "verify --size 2"
  out=$("$tide" sim --map lake.map --goal 3,2 --class water --agents 10 --seconds 3 2>/dev/null) || fail "sim --class water"
  grep -q "class 'water' size 1" <<<"$out" && grep -q "arrived 100.0%" <<<"$out" || fail "sim water units reach the lake: $out"
  "$tide" sim --help | grep -q "Sizes 1..3 walk with bodies of their size" || fail "sim --help does not say which sizes have bodies"
  # Size 2 on the default map: bodies of size 2 (JSON body_size), none in a wall; size 4: size-1 bodies.
  "$tide" sim --map @default --goal 54,18 --agents 40 --size 2 --seconds 30 --json s2.json >s2.txt 2>/dev/null ||
    fail "sim --size 2: $(cat s2.txt)"
  [ "$(jq .body_size s2.json)" = 2 ] && [ "$(jq .wall_penetrations s2.json)" = 0 ] &&
    jq -e '.arrived_fraction >= 0.9' s2.json >/dev/null || fail "sim --size 2: $(jq -c '{body_size, wall_penetrations, arrived_fraction}' s2.json)"
  grep -q "bodies size 1" s2.txt && fail "sim --size 2 says its bodies are size 1: $(cat s2.txt)"
  "$tide" sim --map @default --goal 54,18 --agents 10 --size 4 --seconds 2 --json s4.json 2>/dev/null | grep -q "size 4, bodies size 1" ||
    fail "sim --size 4 must say its bodies are size 1"
  [ "$(jq .body_size s4.json)" = 1 ] || fail "sim --size 4 body_size"
  ;;
class_edit_bad_inputs)
  write_map
  printf 'type octile\nheight 5\nwidth 7\nmap\n.......\n.WWWWW.\n.WWWWW.\n.WWWWW.\n.......\n' >lake.map
  expect_fail "field --size 0" "small.tmap: unit size 0 is outside 1..8" "$tide" field --map small.tmap --goal 5,3 --size 0
  expect_fail "field --size 9" "small.tmap: unit size 9 is outside 1..8" "$tide" field --map small.tmap --goal 5,3 --size 9
  expect_fail "verify --size 9" "unit size 9 is outside 1..8" "$tide" verify --map small.tmap --goal 5,3 --size 9
  expect_fail "sim --size 0" "unit size 0 is outside 1..8" "$tide" sim --map small.tmap --goal 5,3 --size 0
  printf 'version 1\n0\tsmall.tmap\t6\t4\t0\t0\t5\t3\t8\n' >ok.scen
  expect_fail "scen --size 9" "unit size 9 is outside 1..8" "$tide" scen --map small.tmap --scen ok.scen --size 9
  expect_fail "unknown class lists the known ones" "lake.map: unknown unit class 'boat' \(the map has: default, water\)" \
    "$tide" field --map lake.map --goal 0,0 --class boat
  expect_fail "sim unknown class" "unknown unit class 'boat'" "$tide" sim --map lake.map --goal 0,0 --class boat
  expect_fail "goal a wall for the class" "goal \(5, 3\) is a wall for class 'default' size 2" \
    "$tide" field --map small.tmap --goal 5,3 --size 2
  expect_fail "sim goal a wall for the class" "goal \(5, 3\) is a wall for class 'default' size 2" \
    "$tide" sim --map small.tmap --goal 5,3 --size 2 --agents 5
  expect_fail "scen start a wall for the class" "ok.scen:2: start \(0, 0\) is on a wall for class 'default' size 2" \
    "$tide" scen --map small.tmap --scen ok.scen --size 2
  expect_fail "edit off the map" "--edit '0,0,6,0=wall': cell \(6, 0\) is outside the 6x4 map" \
    "$tide" field --map small.tmap --goal 5,3 --edit 0,0,6,0=wall
  expect_fail "edit negative" "--edit '-1,0,0,0=3': cell \(-1, 0\) is outside" \
    "$tide" field --map small.tmap --goal 5,3 --edit=-1,0,0,0=3
  for bad in "1,2,3" "a,b,c,d=5" "=wall" "1,2,3=wall" "1,2,3,4,5=1"; do
    expect_fail "edit '$bad'" "--edit '$bad' is not of the form X0,Y0,X1,Y1=V" \
      "$tide" field --map small.tmap --goal 5,3 --edit="$bad"
  done
  expect_fail "edit reversed" "--edit '3,0,1,0=2': needs X0 <= X1" "$tide" field --map small.tmap --goal 5,3 --edit 3,0,1,0=2
  expect_fail "edit cost 255" "--edit '0,0,0,0=255': cost '255' is not 1..254 or wall" \
    "$tide" field --map small.tmap --goal 5,3 --edit 0,0,0,0=255
  expect_fail "edit cost 0" "cost '0' is not 1..254" "$tide" field --map small.tmap --goal 5,3 --edit 0,0,0,0=0
  expect_fail "edit walls a goal" "--edit '4,2,5,3=wall': .*goal \(5, 3\) into a wall" \
    "$tide" field --map small.tmap --goal 5,3 --edit 4,2,5,3=wall
  # One line on stderr each.
  [ "$("$tide" field --map small.tmap --goal 5,3 --edit 4,2,5,3=wall 2>&1 >/dev/null | wc -l)" -eq 1 ] ||
    fail "the refused edit must print one line"
  ;;
bench_smoke)
  # A tiny run of every row: exit 0, the table and the JSON keys. No timing assertions.
  "$tide" bench fields --help | grep -q -- "--sizes" || fail "bench fields --help prints no --sizes"
  out=$("$tide" bench fields --quick --sizes 64 --seeds 1 --reps 3 --hier-sizes 64,128 --hier-reps 2 --sector 32 \
    --settle 2 --hier-threads 2 --json out.json 2>err.txt) || { cat err.txt; fail "bench fields --quick failed"; }
  for row in "A\* x1000" "textbook 8-dir Dijkstra" "4-dir Dijkstra map" "Boost.Graph" "Tide integration \+ flow" \
    "Tide integration only" "^machine: " "^commit: " "memory per cell" "^hierarchical route query" \
    "^  64x64 +[0-9.]+ .*x " "no flat row: size not in --sizes"; do
    grep -qE "$row" <<<"$out" || fail "bench output has no line matching /$row/"
  done
  [ -s out.json ] || fail "no out.json"
  for key in '"machine"' '"cpu"' '"cores"' '"compiler"' '"commit"' '"maps"' '"rows"' '"median_ms"' \
    '"ratio_vs_textbook"' '"reps"' '"targets"' '"status"' '"total_seconds"'; do
    grep -q "$key" out.json || fail "out.json has no $key"
  done
  # jq is a test dependency (scripts/install-deps.sh --test): without it these checks must not vanish.
  command -v jq >/dev/null 2>&1 || fail "jq not found: run scripts/install-deps.sh --test (make test-deps)"
  jq -e '.maps[0].rows | length == 9' out.json >/dev/null || fail "out.json must hold 9 rows for the 64x64 map"
  jq -e '[.maps[0].rows[].reps] | all(. == 3)' out.json >/dev/null || fail "every row must record 3 reps"
  jq -e '[.targets[].status] | length == 5' out.json >/dev/null || fail "out.json must hold 5 target checks"
  grep -q '"reps": 3' out.json || fail "out.json rows must record 3 reps"
  # Hierarchical rows: 64 (beside the flat 64x64 build: a ratio) and 128 (no flat row).
  jq -e '.hierarchical.rows | length == 2' out.json >/dev/null || fail "out.json must hold 2 hierarchical rows"
  for key in graph_ms graph_bytes query_ms first_field_ms fields_built field_bytes sector_ns_per_cell path_ratio; do
    jq -e ".hierarchical.rows[0].$key | numbers" out.json >/dev/null || fail "hierarchical row has no number $key"
  done
  jq -e '.hierarchical.rows[0].flat_build_over_query > 0 and .hierarchical.rows[1].flat_build_over_query == null' \
    out.json >/dev/null || fail "flat/query ratio only where the flat row ran"
  jq -e '[.hierarchical.rows[].query_samples_ms | length] == [2, 2]' out.json >/dev/null || fail "--hier-reps 2"
  jq -e '.hierarchical.settle_budget == 2 and .hierarchical.threads == 2' out.json >/dev/null ||
    fail "out.json must record --settle 2 and --hier-threads 2"
  grep -q "Settle budget 2; corner reach every corner; route fields built on 2 threads" <<<"$out" ||
    fail "bench header must name settle, corner reach and threads"
  jq -e '.hierarchical.corner_reach == -1' out.json >/dev/null || fail "out.json must record the corner reach"
  expect_fail "bench corner reach -2" "--corner-reach -2 is outside -1..16384" "$tide" bench fields --quick --sizes 8 \
    --reps 1 --corner-reach -2
  expect_fail "bench settle 17" "--settle 17 is outside 0..16" "$tide" bench fields --quick --sizes 8 --reps 1 --settle 17
  expect_fail "bench threads 0" "--hier-threads 0 is outside 1..256" "$tide" bench fields --quick --sizes 8 --reps 1 \
    --hier-threads 0
  expect_fail "bench reps below 20" "below 20" "$tide" bench fields --sizes 64 --reps 3
  expect_fail "bench bad movingai" "not a directory" "$tide" bench fields --quick --sizes 8 --reps 1 --movingai nope
  ;;
bench_crowd_smoke)
  # A tiny `tide bench crowd`: the side-by-side with ORCA prints its rows and writes them to the
  # JSON (1,000 and 10,000 agents, 100,000 only when asked). No timing assertions.
  out=$("$tide" bench crowd --sizes 64 --agents 300 --reps 5 --orca-seconds 0.5 --json out.json 2>err.txt) ||
    { cat err.txt; fail "bench crowd failed"; }
  for row in "side by side with ORCA" "^  1000 +Tide " "^  1000 +ORCA .*x$" "^  10000 +ORCA .*x$" \
    "ORCA step / Tide step"; do
    grep -qE "$row" <<<"$out" || fail "bench crowd output has no line matching /$row/"
  done
  grep -q "100000 " <<<"$out" && fail "the 100,000-agent side-by-side must be opt-in"
  command -v jq >/dev/null 2>&1 || fail "jq not found: run scripts/install-deps.sh --test (make test-deps)"
  jq -e '[.rows[] | select(.crowd)] | length == 4' out.json >/dev/null || fail "out.json must hold 4 side-by-side rows"
  for key in median_ms mean_ms deepest_overlap_radii pairs_deeper_than_half_radius deepest_overlap_radii_at_end; do
    jq -e "[.rows[] | select(.crowd) | .$key | numbers] | length == 4" out.json >/dev/null ||
      fail "side-by-side rows need a number $key"
  done
  jq -e '[.rows[] | select(.crowd == "orca") | .orca_over_tide > 0] | all' out.json >/dev/null ||
    fail "ORCA rows need their ratio"
  out=$("$tide" bench crowd --sizes 64 --agents 300 --reps 5 --no-orca 2>/dev/null) || fail "--no-orca failed"
  grep -q "ORCA" <<<"$out" && fail "--no-orca must skip the side-by-side"
  expect_fail "bench crowd orca seconds 0" "--orca-seconds must be in" "$tide" bench crowd --orca-seconds 0
  ;;
bench_navmesh_smoke)
  # A small `tide bench navmesh` (default map, no crowds): its tables, JSON and --doc markers, and
  # its errors. No timing assertions. A tide built without Recast/Detour must say what to install
  # and exit 77, which CTest reports as skipped.
  out=$("$tide" bench navmesh --maps default --units 1,10 --quality-starts 20 --no-crowd --json out.json 2>err.txt)
  rc=$?
  if [ $rc = 77 ]; then
    grep -q "librecast-dev" err.txt || fail "the skip must name the package: $(cat err.txt)"
    echo "skipped: $(cat err.txt)"
    exit 77
  fi
  [ $rc = 0 ] || { cat err.txt; fail "bench navmesh failed ($rc)"; }
  for row in "### default (64x40), goal (54, 18)" "Crossover: the field costs as much as" \
    "| reachability | 0 cells of the 2,422 the grid reaches" "## Terrain that changes" "## Weighted terrain" \
    "| default (64x40) | NavMesh with area costs |" "Tide, a unit's travelled path" \
    "tide bench navmesh --maps default --units 1,10 --quality-starts 20"; do
    grep -qF -- "$row" <<<"$out" || fail "bench navmesh output has no line with '$row'"
  done
  grep -q "## Crowds" <<<"$out" && fail "--no-crowd must skip the crowds"
  command -v jq >/dev/null 2>&1 || fail "jq not found: run scripts/install-deps.sh --test (make test-deps)"
  jq -e '.maps[0].not_found == 0 and .maps[0].grid_only_cells == 0 and .maps[0].mesh_only_cells == 0' out.json \
    >/dev/null || fail "out.json: the mesh and the field must agree on the default map"
  jq -e '(.maps[0].queries | length) == 2 and .maps[0].quality.starts > 0' out.json >/dev/null ||
    fail "out.json needs 2 query rows and the quality figures"
  printf 'before\n<!-- tide bench navmesh: begin -->\nold tables\n<!-- tide bench navmesh: end -->\nafter\n' >page.md
  "$tide" bench navmesh --maps default --units 1 --quality-starts 5 --no-crowd --doc page.md >/dev/null 2>&1 ||
    fail "bench navmesh --doc failed"
  grep -q "old tables" page.md && fail "--doc must replace what lies between the markers"
  { grep -qx before page.md && grep -qx after page.md && grep -q "Crossover" page.md; } ||
    fail "--doc must keep the page round the markers and write the tables: $(cat page.md)"
  echo "no markers" >bare.md
  expect_fail "bench navmesh doc without markers" "markers .* are missing" "$tide" bench navmesh --maps default \
    --units 1 --quality-starts 5 --no-crowd --doc bare.md
  expect_fail "bench navmesh unknown map" "'nowhere' is not one of" "$tide" bench navmesh --maps nowhere
  expect_fail "bench navmesh units 0" "--units 0 is outside" "$tide" bench navmesh --units 0
  ;;
sim_record_replay)
  # Lockstep tools: a scenario run (two groups, orders mid-run) recorded on 2 threads replays on 1
  # thread to the same hash at every tick; a changed hash or unit is named by tide desync.
  "$tide" sim --scenario gap_swap --seconds 6 --threads 2 --record run.rec --state-out a.state >out.txt 2>&1 ||
    { cat out.txt; fail "sim --record"; }
  grep -q "recorded .* events (360 ticks) to run.rec" out.txt || fail "no recording line: $(cat out.txt)"
  head -1 run.rec | grep -qx "tide-recording 1" || fail "run.rec does not start with its format line"
  [ "$(grep -c '^tick ' run.rec)" = 360 ] || fail "run.rec holds $(grep -c '^tick ' run.rec) ticks, not 360"
  "$tide" sim --replay run.rec --threads 1 --state-out b.state >replay.txt 2>&1 || { cat replay.txt; fail "replay"; }
  grep -q "identical to the recording at every tick" replay.txt || fail "replay: $(cat replay.txt)"
  "$tide" desync a.state b.state >d.txt || fail "desync of equal states: $(cat d.txt)"
  grep -q "^identical: tick 360" d.txt || fail "desync: $(cat d.txt)"
  # The 200th tick's hash changed: the replay and desync name tick 200.
  awk '/^tick /{n++; if (n==200) {$4="0000000000000000"}} {print}' run.rec >bad.rec
  expect_fail "replay of a changed recording" "desync: tick 200 gives state hash" "$tide" sim --replay bad.rec
  "$tide" desync run.rec bad.rec >d.txt && fail "desync of different recordings exits 0"
  grep -q "first difference: tick 200: state hash" d.txt || fail "desync: $(cat d.txt)"
  # One unit's x one ulp over: desync names the unit, both positions and the distance in ulps.
  px=$(awk '/^unit /{print $7; exit}' a.state)
  awk -v px="$px" -v nx="$(printf '%08x' $((16#$px + 1)))" '/^unit / && !done {$7=nx; done=1} {print}' a.state >c.state
  "$tide" desync a.state c.state >d.txt && fail "desync of different states exits 0"
  grep -qE "first difference at tick 360: unit [0-9]+:[0-9]+ \(roster #0, group [0-9]+\): position .* 1 ulp apart" d.txt ||
    fail "desync: $(cat d.txt)"
  # Stopping early: the state at tick 120 differs from the end's.
  "$tide" sim --replay run.rec --replay-ticks 120 --state-out early.state >/dev/null 2>&1 || fail "--replay-ticks"
  grep -qx "tick 120" early.state || fail "early.state: $(head -3 early.state)"
  expect_fail "desync of two kinds" "not of one kind" "$tide" desync run.rec a.state
  expect_fail "replay with a map" "--replay runs what the recording holds" "$tide" sim --replay run.rec --map @default
  expect_fail "record with both" "--record records one run" "$tide" sim --scenario door --record x.rec --congestion both
  printf 'tide-recording 1\nset seed 1\ntick zz 0 00\n' >broken.rec
  expect_fail "broken recording" "broken.rec:3: expected 'tick DT FORCE HASH'" "$tide" sim --replay broken.rec
  ;;
sim_wall_safety)
  # The issue's wall-safety scenario: 10,000 agents for 60 simulated seconds on the 256x256 benchmark map.
  "$tide" gen --seed 1 --out r256.tmap || fail "gen"
  "$tide" sim --map r256.tmap --goal 128,128 --agents 10000 --seconds 60 --json sim.json --png sim.png >out.txt 2>/dev/null ||
    { cat out.txt; fail "sim failed"; }
  for key in agents arrived_fraction arrived_by_second step_ms_by_second mean_arrival_s max_arrival_s no_path stuck wall_penetrations \
    max_overlap mean_step_ms max_step_ms state_hash; do
    grep -q "\"$key\"" sim.json || fail "sim.json has no $key"
  done
  grep -qE '"wall_penetrations": 0,?$' sim.json || fail "wall penetrations: $(grep wall_penetrations sim.json)"
  grep -qE '"nan": false,?$' sim.json || fail "NaN positions"
  grep -qE '"state_hash": "[0-9a-f]{16}"' sim.json || fail "state hash is not 16 hex digits"
  [ "$(head -c 8 sim.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "sim.png is not a PNG"
  # --detail: one entry per agent; on an open map a lone unit walks the straight line (line of sight).
  printf 'tide-map 1\nwidth 40\nheight 20\nmap\n' >open40.tmap
  for _ in $(seq 20); do printf '%s\n' "$(printf '.%.0s' $(seq 40))" >>open40.tmap; done
  "$tide" sim --map open40.tmap --goal 35,15 --agents 1 --spawn 3,3,4,4 --seconds 20 --detail --json detail.json \
    >/dev/null 2>&1 || fail "sim --detail"
  jq -e '(.agents_detail | length) == 1 and (.agents_detail[0] | has("start") and has("end") and
         has("path_length") and has("arrival_s") and .state == "arrived")' detail.json >/dev/null ||
    fail "agents_detail: $(jq -c .agents_detail detail.json)"
  jq -e '.agents_detail[0] as $a | ($a.path_length + ((($a.end[0] - 35.5) | . * .) + (($a.end[1] - 15.5) | . * .) | sqrt))
         / ((($a.start[0] - 35.5) | . * .) + (($a.start[1] - 15.5) | . * .) | sqrt) < 1.01' detail.json >/dev/null ||
    fail "a lone unit on an open map walks more than 1% over the straight line: $(jq -c .agents_detail detail.json)"
  "$tide" sim --map open40.tmap --goal 35,15 --agents 1 --spawn 3,3,4,4 --seconds 20 --detail --line-of-sight off \
    --json detail_off.json >/dev/null 2>&1 || fail "sim --line-of-sight off"
  jq -e '.line_of_sight == false and .agents_detail[0].arrival_s > 0' detail_off.json >/dev/null ||
    fail "--line-of-sight off: $(jq -c '{line_of_sight, agents_detail}' detail_off.json)"
  jq -n --slurpfile on detail.json --slurpfile off detail_off.json \
    '$on[0].agents_detail[0].path_length < $off[0].agents_detail[0].path_length' >/dev/null ||
    fail "line of sight does not shorten the walk"
  "$tide" sim --map @default --goal 54,18 --agents 100 --seconds 3 --gif sim.gif >/dev/null 2>&1 || fail "sim --gif"
  [ "$(head -c 6 sim.gif)" = "GIF89a" ] || fail "sim.gif is not a GIF89a file"
  [ "$(stat -c %s sim.gif)" -gt 10000 ] || fail "sim.gif is suspiciously small (30 frames expected)"
  # --congestion both: the run without, then the run with congestion, one JSON, one picture of both.
  "$tide" sim --map @default --goal 54,18 --agents 300 --seconds 3 --congestion both --png both.png --png-at 2 \
    --json both.json >/dev/null 2>&1 || fail "sim --congestion both"
  jq -e '.off.congestion == false and .on.congestion == true and .on.congestion_refreshes >= 12
         and .off.wall_penetrations == 0 and .on.wall_penetrations == 0
         and .on.state_hash != .off.state_hash' both.json >/dev/null ||
    fail "--congestion both: $(jq -c '{off: .off | {congestion, state_hash}, on: .on | {congestion, congestion_refreshes, state_hash}}' both.json)"
  [ "$(head -c 8 both.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "both.png is not a PNG"
  # Same seed, same result, whatever the thread count. 5,000 agents span several of the crowd's
  # 1,024-agent parallel ranges, but oneTBB cuts the ranges at the same places for 1 and 2 threads,
  # so a bug that depends on where a range starts gives equal wrong hashes in both runs: the hash is
  # also compared with one recorded from a known-good build. The spawn RNG is Tide's own and the
  # step uses only correctly rounded float operations (+ - * / sqrt), so the value is the same for
  # every build that does not fuse multiply-adds (GCC with CXX_EXTENSIONS OFF: -ffp-contract=off;
  # x86-64 without -march flags has no FMA). Re-record it (run the command below) only when the
  # crowd's behaviour, the spawn or @default changes on purpose, or for a compiler and target that
  # contract to FMA (e.g. Clang on aarch64).
  # 2026-12-02: the deep pass (CrowdParams::pack_overlap) changed it; the second hash is the run
  # with the pass off (--pack-overlap 2), which was then the crowd before the pass, bit for bit.
  # 2026-12-02, later: a unit alone aims just off the corners its path turns round (look_ahead.cpp,
  # kCornerCrowd): both re-recorded; with the corner aims off, the first is the one before (checked
  # by hand, 5d0b3b8a48ac3bc2).
  # 2026-12-03: the deep pass also bounds pairs of mates with a unit flagged stuck in them, checked
  # where the contact passes left them (contacts.cpp, jammed_mates): the first re-recorded, the
  # second (no bound) unchanged.
  # 2026-12-04: crowds that meet (issue 34: arrival regions, queued units, sleeping without the
  # mover tiles, acceleration in proportion to speed, units held up at a free anchor arrive, an
  # arrived unit stays within 1.2 (ri + rj) of the pack): both re-recorded.
  # 2026-12-04, later: Crowd::state_hash() is a new function (three 64-bit words a unit, the units'
  # hashes summed: 0.59% of a step, docs/determinism.md), and arrival regions changed (the fill
  # field never leads out of a region and back in; a unit held up on a covered cell arrives):
  # both re-recorded.
  # 2026-12-05: line of sight tests the cells of the swept square exactly, row by row, with the
  # same 1/16-cell margin (look_ahead.cpp, segment_clear; it sampled the segment every 1/8 cell):
  # both re-recorded. With --line-of-sight off the old and new builds agree (df450850eb92c6fd).
  # 2026-12-05, later: keep-right reads no lane while the unit's group is the only one walking
  # (desired_velocity.cpp): both re-recorded. With the old rule switched back in by hand, the new
  # build gave the old hash of the benchmark run (13e5728d10c1c33a): the lanes' new sums, the
  # parallel marks and the rounding without libm change nothing else.
  expected_hash=c82a54421ee5f20b
  expected_hash_no_pack_bound=c09095da8ba26fec
  sim5k=("$tide" sim --map @default --goal 54,18 --agents 5000 --seconds 5)
  h1=$("${sim5k[@]}" --threads 1 2>/dev/null | grep -o 'state hash [0-9a-f]*')
  h2=$("${sim5k[@]}" --threads 2 2>/dev/null | grep -o 'state hash [0-9a-f]*')
  [ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "state hash differs between 1 and 2 threads: '$h1' vs '$h2'"
  [ "$h2" = "state hash $expected_hash" ] ||
    fail "${sim5k[*]} --threads 2: '$h2', recorded 'state hash $expected_hash' (see the comment to re-record)"
  h3=$("${sim5k[@]}" --threads 2 --pack-overlap 2 2>/dev/null | grep -o 'state hash [0-9a-f]*')
  [ "$h3" = "state hash $expected_hash_no_pack_bound" ] ||
    fail "${sim5k[*]} --threads 2 --pack-overlap 2: '$h3', recorded 'state hash $expected_hash_no_pack_bound'"
  ;;
sim_bad_inputs)
  expect_fail "sim goal on wall" "is on a wall" "$tide" sim --map @default --goal 14,0 --agents 10
  expect_fail "sim zero agents" "outside 1..1000000" "$tide" sim --map @default --goal 54,18 --agents 0
  expect_fail "sim bad line of sight" "--line-of-sight 'maybe' is not on or off" \
    "$tide" sim --map @default --goal 54,18 --agents 10 --line-of-sight maybe
  expect_fail "sim negative dt" "--dt must be" "$tide" sim --map @default --goal 54,18 --dt -1
  expect_fail "sim bad pack overlap" "--pack-overlap 3.000000 is outside 0..2" \
    "$tide" sim --map @default --goal 54,18 --agents 10 --pack-overlap 3
  expect_fail "sim bad congestion" "--congestion 'maybe' is not on, off or both" \
    "$tide" sim --map @default --goal 54,18 --agents 10 --congestion maybe
  expect_fail "sim bad congestion rate" "congestion refresh rate 100 Hz is outside 0.5..30" \
    "$tide" sim --map @default --goal 54,18 --agents 10 --congestion on --congestion-hz 100
  expect_fail "sim bad spawn" "is not X0,Y0,X1,Y1" "$tide" sim --map @default --goal 54,18 --spawn 5,5,1,1
  expect_fail "sim spawn in a wall" "could not find free positions" "$tide" sim --map @default --goal 54,18 --agents 5 --spawn 14,0,15.9,10
  ;;
serve_lifecycle)
  # tide serve: refuses bad options with a clear message; serves the compiled-in page from any
  # directory; Ctrl-C (SIGINT) stops it cleanly with exit status 0.
  expect_fail "serve missing map" "nope.map" "$tide" serve --map nope.map --port 0
  expect_fail "serve too many agents" "outside 0..200000" "$tide" serve --agents 300000 --port 0
  expect_fail "serve bad host" "not an IP address" "$tide" serve --host example.invalid --port 0
  expect_fail "serve bad port" "outside 0..65535" "$tide" serve --port 70000
  "$tide" serve --port 0 --agents 100 >serve.out 2>serve.err &
  pid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*/' serve.out 2>/dev/null | head -1)
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { kill "$pid"; fail "no listening line: $(cat serve.out serve.err)"; }
  page=$(curl -sf "$url") || { kill "$pid"; fail "GET / failed"; }
  grep -q "<html" <<<"$page" || { kill "$pid"; fail "GET / is not the page"; }
  curl -sf "${url}app.js" >/dev/null || { kill "$pid"; fail "GET /app.js failed"; }
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 0 ] || fail "tide serve exited with $rc after SIGINT: $(cat serve.err)"
  grep -q "stopped" serve.out || fail "no 'stopped' line after SIGINT"
  echo "ok: served $url and stopped on SIGINT"
  ;;
atomic_outputs)
  # A failed write never destroys what is at the output path: every writer fills a temporary file
  # beside the target and renames it into place only when it succeeded.
  write_map
  no_temp_left() { ! ls ./*.tmp.* >/dev/null 2>&1 || fail "temporary files left behind: $(ls ./*.tmp.*)"; }
  # The reported case: a character device (/dev/full's numbers) as --png. It must be refused and stay.
  mknod full c 1 7 || fail "mknod (the test runs as root in CI)"
  expect_fail "png onto a device" "full: is a character device; refusing to replace it" \
    "$tide" field --map small.tmap --goal 5,3 --png full
  [ -c full ] || fail "the character device 'full' is gone after a refused --png"
  # A directory and a FIFO: refused at once (opening a FIFO for writing would block).
  mkdir adir
  expect_fail "csv onto a directory" "adir: is a directory" "$tide" field --map small.tmap --goal 5,3 --dist-csv adir
  [ -d adir ] || fail "the directory is gone"
  mkfifo apipe
  expect_fail "json onto a FIFO" "apipe: is a FIFO" timeout 20 "$tide" sim --map @default --goal 54,18 --agents 10 --seconds 1 --json apipe
  [ -p apipe ] || fail "the FIFO is gone"
  # A regular file whose rewrite fails (a 256-byte file size limit stops the writer halfway): the
  # old contents stay, for every writer.
  "$tide" gen --width 64 --height 64 --seed 3 --out big.tmap >/dev/null || fail "gen big.tmap"
  for spec in "png:field --map big.tmap --goal 1,1 --png OUT" "csv:field --map big.tmap --goal 1,1 --dist-csv OUT" \
    "next:field --map big.tmap --goal 1,1 --next-csv OUT" "map:gen --width 64 --height 64 --out OUT" \
    "json:sim --map @default --goal 54,18 --agents 200 --seconds 1 --json OUT" \
    "gif:sim --map @default --goal 54,18 --agents 10 --seconds 1 --gif OUT"; do
    what=${spec%%:*} args=${spec#*:}
    echo "precious $what" >"keep.$what"
    # shellcheck disable=SC2086
    (trap '' XFSZ; prlimit --fsize=256 -- "$tide" ${args/OUT/keep.$what} >/dev/null 2>"err.$what") &&
      fail "$what: a write over the size limit exited 0"
    [ "$(cat "keep.$what")" = "precious $what" ] || fail "$what: a failed write changed the old file: $(head -c 80 "keep.$what")"
    grep -q "keep.$what" "err.$what" || fail "$what: the error does not name the file: $(cat "err.$what")"
    no_temp_left
    echo "ok: $what: failed write left the old file ($(cat "err.$what"))"
  done
  # Success replaces the old file whole.
  "$tide" field --map small.tmap --goal 5,3 --png keep.png --dist-csv keep.csv >/dev/null || fail "field --png"
  [ "$(head -c 4 keep.png | tail -c 3)" = "PNG" ] || fail "keep.png is not a PNG after a successful write"
  [ "$(wc -l <keep.csv)" -eq 4 ] || fail "keep.csv was not replaced"
  no_temp_left
  ;;
limits)
  # Counts derived from user numbers are range-checked; inputs that cannot fit or finish are
  # refused at once with a message naming the value and the limit (include/tide/limits.hpp).
  "$tide" gen --width 64 --height 64 --walls 0 --forest 0 --swamp 0 --out open64.tmap >/dev/null || fail "gen"
  t() { timeout 30 "$tide" "$@"; }  # anything that does not answer within 30 s is a failure too
  expect_fail "sim dt 1e-9" "--seconds 3600 / --dt 1e-09 = 3.6e\+12 steps, more than the limit of 2160000" \
    t sim --map open64.tmap --goal 1,1 --dt 1e-9 --seconds 3600
  # The edge: 3600 s at dt 3600/2160000 is exactly the limit: the step check passes and the next
  # check (--threads, refused) ends the run before it starts.
  expect_fail "sim steps at the limit pass the step check" "--threads 300 is outside" \
    t sim --map open64.tmap --goal 1,1 --dt 0.0016666666666666668 --seconds 3600 --threads 300
  expect_fail "sim agents per cell" "1000000 units of size 1 do not fit.*4096 free cells, room for 40960" \
    t sim --map open64.tmap --goal 1,1 --agents 1000000
  expect_fail "sim spawn off the map" "--spawn '100,100,200,200' lies off the 64x64 map" \
    t sim --map open64.tmap --goal 1,1 --agents 10 --spawn 100,100,200,200
  expect_fail "sim tiny spawn area" "100000 units of size 1 do not fit.*1 free cells, room for 10 " \
    t sim --map open64.tmap --goal 1,1 --agents 100000 --spawn 1,0,1.001,0.001
  t sim --map open64.tmap --goal 1,1 --agents 10 --spawn 1,0,1.001,0.001 --seconds 1 >/dev/null 2>&1 ||
    fail "10 units in one cell (the edge) were refused"
  mkfifo pipe.map
  expect_fail "FIFO as --map" "pipe.map: is a FIFO, not a regular file" t field --map pipe.map --goal 1,1
  mkdir dir.map
  expect_fail "directory as --map" "dir.map: is a directory, not a regular file" t field --map dir.map --goal 1,1
  err=$("$tide" field --map dir.map --goal 1,1 2>&1) ; grep -q "bytes" <<<"$err" && fail "directory message names a size: $err"
  printf 'version 1\n0\topen64.tmap\t64\t64\t0\t0\t5\t5\t7.0710678\n' >one.scen
  expect_fail "scen threads -1" "--threads -1 is outside 0..256" t scen --map open64.tmap --scen one.scen --threads -1
  expect_fail "scen threads 1e9" "--threads 1000000000 is outside 0..256" t scen --map open64.tmap --scen one.scen --threads 1000000000
  expect_fail "scen threads 257" "--threads 257 is outside 0..256" t scen --map open64.tmap --scen one.scen --threads 257
  t scen --map open64.tmap --scen one.scen --threads 256 >/dev/null || fail "--threads 256 (the edge) refused"
  expect_fail "sim threads" "--threads 300 is outside 0..256" t sim --map open64.tmap --goal 1,1 --threads 300
  expect_fail "serve threads" "--threads -2 is outside 0..256" t serve --port 0 --threads -2
  err=$("$tide" field --map open64.tmap --goal 1,1 --diagonal 1e308 2>&1) && fail "--diagonal 1e308 accepted"
  grep -qxF -- "tide: error: --diagonal 1e+308 is outside 1..2" <<<"$err" || fail "--diagonal 1e308 message: $err"
  # Issue 43: options checked before any work, named as what they are (each under 5 s here; before:
  # '-1 agents' rows, --sector refused after the flat rows, 39 s of generating for /dev/null, a
  # whole simulation before an unwritable --json, NaN taken as a ratio, a flee danger called a goal).
  q() { timeout 5 "$tide" "$@"; }
  expect_fail "bench crowd --agents -1" "--agents: Value -1 not in range 1 to 200000" q bench crowd --agents -1
  expect_fail "bench fields --sector 1" "--sector: Value 1 not in range 16 to 256" q bench fields --sector 1
  expect_fail "gen to /dev/null" "/dev/null: is a character device" q gen --width 16384 --height 16384 --out /dev/null
  expect_fail "sim --json unwritable" "nowhere/x.json: cannot create a file there" \
    q sim --map open64.tmap --goal 1,1 --agents 100 --seconds 600 --json nowhere/x.json
  expect_fail "sim --png unwritable" "nowhere/x.png: cannot create a file there" \
    q sim --map open64.tmap --goal 1,1 --agents 100 --seconds 600 --png nowhere/x.png
  expect_fail "scen --max-ratio nan" "--max-ratio nan is not a ratio" q scen --map open64.tmap --scen one.scen --max-ratio nan
  expect_fail "sim --flee off the map" "danger \(99, 0\) is outside the 64x64 map" \
    q sim --map open64.tmap --flee 99,0 --agents 10 --seconds 1
  # Past the file-size limit the writer fails, names the target and leaves no temporary file.
  expect_fail "gen past ulimit -f" "big.tmap: write error: File too large" \
    bash -c "ulimit -f 1; exec \"\$0\" gen --width 200 --height 200 --out big.tmap" "$tide"
  ! ls big.tmap* >/dev/null 2>&1 || fail "a write past the file-size limit left $(ls big.tmap*)"
  ;;
validation_script_crlf)
  # scripts/validate-movingai.sh on a map with CRLF line ends (as Moving AI's street maps have):
  # each table row stays on one line.
  mkdir -p data/street
  printf 'type octile\r\nheight 3\r\nwidth 4\r\nmap\r\n....\r\n.@@.\r\n....\r\n' >data/street/crlf.map
  printf 'version 1\r\n0\tcrlf.map\t4\t3\t0\t0\t3\t2\t5.00000000\r\n' >data/street/crlf.map.scen
  out=$(bash "$root/scripts/validate-movingai.sh" "$tide" data) || fail "validate-movingai.sh failed: $out"
  grep -q $'\r' <<<"$out" && fail "the table holds a carriage return: $(cat -A <<<"$out")"
  grep -qx '| street/crlf.map | 4x3 | 1 | 1 | 0 | .* | .* | OK |' <<<"$out" || fail "row broken: $out"
  ;;
field_flee)
  # The dead-end corridor (docs/flee.md): row 20, x = 1..10, dead end at x = 1, a 90x41 room from
  # x = 11; the danger at (7, 20). k = 1.2 runs east past the danger, k = 1 west into the dead end.
  awk 'BEGIN { print "tide-map 1"; print "width 101"; print "height 41"; print "map"
    for (y = 0; y < 41; ++y) { row = ""
      for (x = 0; x < 101; ++x) row = row ((x <= 10 && !(y == 20 && x >= 1)) ? "#" : ".")
      print row } }' >dead.tmap
  out=$("$tide" field --map dead.tmap --flee 7,20 --dist-csv d.csv --next-csv n.csv --png f.png) || fail "flee field failed"
  grep -q "1 danger(s), flee factor 1.2, 3700 reachable cells" <<<"$out" || fail "flee summary: $out"
  [ -s f.png ] || fail "no flee png"
  # (3, 20) moves to (4, 20) = index 2024 with k = 1.2; V is negative; the wall (0, 0) is inf.
  [ "$(sed -n 21p n.csv | cut -d, -f4)" = "2024" ] || fail "k=1.2: (3,20) must move east to 2024"
  v=$(sed -n 21p d.csv | cut -d, -f4)
  awk -v v="$v" 'BEGIN { exit !(v < -10) }' || fail "k=1.2: V(3,20) = $v, expected below -10"
  [ "$(sed -n 1p d.csv | cut -d, -f1)" = "inf" ] || fail "wall value must be inf"
  "$tide" field --map dead.tmap --flee 7,20 --flee-factor 1 --next-csv n1.csv >/dev/null || fail "k=1 failed"
  [ "$(sed -n 21p n1.csv | cut -d, -f4)" = "2022" ] || fail "k=1: (3,20) must move west to 2022"
  [ "$(sed -n 21p n1.csv | cut -d, -f2)" = "-1" ] || fail "k=1: the dead end (1,20) must be a safe spot"
  "$tide" verify --map dead.tmap --flee 7,20 | grep -q ": OK$" || fail "verify --flee"
  "$tide" verify --map @default --flee 40,20 --flee 10,30 --flee-factor 2 --connectivity 4 | grep -q ": OK$" ||
    fail "verify --flee, two dangers, 4 directions"
  "$tide" field --map dead.tmap --flee 7,20 --repeat 3 | grep -q "^build_ms_median=" || fail "flee --repeat"
  expect_fail "flee on a wall" "danger \\(0, 0\\) is on a wall" "$tide" field --map dead.tmap --flee 0,0
  expect_fail "flee off the map" "danger \\(200, 0\\) is outside the 101x41 map" "$tide" field --map dead.tmap --flee 200,0
  expect_fail "flee factor 0" "flee factor 0 is outside" "$tide" field --map dead.tmap --flee 7,20 --flee-factor 0
  expect_fail "flee factor nan" "flee factor nan is outside" "$tide" field --map dead.tmap --flee 7,20 --flee-factor nan
  expect_fail "goal and flee" "give --goal .* or --flee" "$tide" field --map dead.tmap --flee 7,20 --goal 50,20
  # --edit repairs a flee field in place: a wall and its removal leave the field as built.
  out=$("$tide" field --map dead.tmap --flee 7,20 --edit 50,10,52,12=wall --edit 50,10,52,12=1 \
    --dist-csv e.csv --next-csv en.csv) || fail "flee with edits failed"
  grep -q "^edit 50,10,52,12=wall: changed=9 .* rebuilt=no" <<<"$out" || fail "flee edit not repaired: $out"
  cmp -s d.csv e.csv && cmp -s n.csv en.csv || fail "flee field after a wall and its removal differs from the build"
  expect_fail "flee edit walls the danger" "turns danger \\(7, 20\\) into a wall" \
    "$tide" field --map dead.tmap --flee 7,20 --edit 6,20,7,20=wall
  expect_fail "flee would-block" "--would-block is for goal fields" \
    "$tide" field --map dead.tmap --flee 7,20 --would-block 50,1,50,1
  ;;
field_margin)
  write_map
  # (5,0) is next to the map edge: with a margin of 1 cell (+5) entering it costs 6.
  "$tide" field --map small.tmap --goal 5,0 --wall-margin 1,5 --dist-csv m.csv >/dev/null || fail "margin field"
  [ "$(sed -n 1p m.csv | cut -d, -f5)" = "6" ] || fail "(4,0) next to the edge must cost 6 to (5,0): $(sed -n 1p m.csv)"
  # A margin with edits is repaired exactly: the edit line, and verify on the same layer passes.
  "$tide" field --map small.tmap --goal 5,0 --wall-margin 1,5 --edit 3,3,3,3=wall | grep -q "^edit 3,3,3,3=wall:" ||
    fail "margin with --edit"
  "$tide" verify --map small.tmap --goal 5,0 --wall-margin 2,7 | grep -q ": OK$" || fail "verify --wall-margin"
  # Mixed field: a danger term makes the cells near (3,0) dearer.
  "$tide" field --map small.tmap --goal 5,0 --danger 3,0 --danger-weight 10 --danger-radius 2 --dist-csv x.csv >/dev/null ||
    fail "mixed field"
  "$tide" field --map small.tmap --goal 5,0 --dist-csv p5.csv >/dev/null || fail "plain field to (5,0)"
  a=$(sed -n 1p p5.csv | cut -d, -f1) b=$(sed -n 1p x.csv | cut -d, -f1)
  awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a + 2) }' || fail "mixed field: (0,0) costs $b, plain $a: the danger term is missing"
  # A mixed field is repaired in place too: a cost and its removal leave the field as built.
  "$tide" field --map small.tmap --goal 5,0 --danger 3,0 --danger-weight 10 --danger-radius 2 --edit 2,2,3,2=6 \
    --edit 2,2,3,2=1 --dist-csv xe.csv | grep -q "^edit 2,2,3,2=6: changed=2 " || fail "mixed field with --edit"
  cmp -s x.csv xe.csv || fail "mixed field after a cost and its removal differs from the build"
  expect_fail "mixed edit walls the danger" "turns danger \\(3, 0\\) into a wall" \
    "$tide" field --map small.tmap --goal 5,0 --danger 3,0 --edit 3,0,3,0=wall
  printf 'version 1\n0\tsmall.tmap\t6\t4\t0\t0\t5\t3\t8.00000000\n' >ok.scen
  "$tide" scen --map small.tmap --scen ok.scen --wall-margin 1,3 | grep -q "compared=no mean_ratio_to_optimal=" ||
    fail "scen --wall-margin summary"
  expect_fail "margin not R,C" "--wall-margin '2' is not of the form R,C" "$tide" field --map small.tmap --goal 5,0 --wall-margin 2
  expect_fail "margin extra 300" "extra cost 300 is outside 0..253" "$tide" field --map small.tmap --goal 5,0 --wall-margin 2,300
  expect_fail "margin radius 65" "radius 65 is outside 0..64" "$tide" sim --map small.tmap --goal 5,0 --wall-margin 65,1
  expect_fail "danger weight" "danger weight 300 is outside" "$tide" field --map small.tmap --goal 5,0 --danger 3,0 --danger-weight 300
  ;;
sim_flee)
  # 400 agents around a danger in the default map's middle: they end farther from it, nobody within
  # 3 cells, most standing at safe spots.
  "$tide" sim --map @default --flee 40,20 --agents 400 --spawn 30,12,50,28 --seconds 20 --threads 1 --json s.json \
    >s.out 2>/dev/null || fail "sim --flee failed"
  grep -q "^flee factor 1.2: distance from the nearest danger" s.out || fail "no flee line: $(cat s.out)"
  python3 - s.json <<'PY' || fail "sim --flee outcome: $(cat s.out)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["danger_distance_mean_end"] > r["danger_distance_mean_start"] + 8, r
assert r["danger_distance_min_end"] > 3, r
assert r["arrived_fraction"] > 0.8, r
assert r["wall_penetrations"] == 0, r
PY
  "$tide" sim --map @default --goal 60,20 --agents 200 --seconds 5 --threads 1 --wall-margin 2,4 --json m.json >/dev/null 2>&1 ||
    fail "sim --wall-margin"
  grep -q '"wall_margin"' m.json || fail "sim json has no wall_margin"
  expect_fail "sim goal and flee" "give --goal" "$tide" sim --map @default --goal 60,20 --flee 40,20
  expect_fail "sim flee factor" "flee factor" "$tide" sim --map @default --flee 40,20 --flee-factor -1 --agents 10 --seconds 1
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "PASS [$case_name]"
