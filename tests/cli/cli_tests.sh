#!/usr/bin/env bash
# Usage: cli_tests.sh CASE TIDE_BINARY WORK_DIR
# Each case asserts on outputs and exit codes; any failed assertion exits 1 with a message.
set -uo pipefail
case_name=$1
tide=$2
work=$3
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
  for c in run field scen verify gen render; do
    "$tide" $c --help | grep -q -- "--" || fail "$c --help prints no options"
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
bench_smoke)
  # A tiny run of every row: exit 0, the table and the JSON keys. No timing assertions.
  "$tide" bench fields --help | grep -q -- "--sizes" || fail "bench fields --help prints no --sizes"
  out=$("$tide" bench fields --quick --sizes 64 --seeds 1 --reps 3 --json out.json 2>err.txt) ||
    { cat err.txt; fail "bench fields --quick failed"; }
  for row in "A\* x1000" "textbook 8-dir Dijkstra" "4-dir Dijkstra map" "Boost.Graph" "Tide integration \+ flow" \
    "Tide integration only" "^machine: " "^commit: " "memory per cell"; do
    grep -qE "$row" <<<"$out" || fail "bench output has no line matching /$row/"
  done
  [ -s out.json ] || fail "no out.json"
  for key in '"machine"' '"cpu"' '"cores"' '"compiler"' '"commit"' '"maps"' '"rows"' '"median_ms"' \
    '"ratio_vs_textbook"' '"reps"' '"targets"' '"status"' '"total_seconds"'; do
    grep -q "$key" out.json || fail "out.json has no $key"
  done
  if command -v jq >/dev/null 2>&1; then
    jq -e '.maps[0].rows | length == 9' out.json >/dev/null || fail "out.json must hold 9 rows for the 64x64 map"
    jq -e '[.maps[0].rows[].reps] | all(. == 3)' out.json >/dev/null || fail "every row must record 3 reps"
    jq -e '[.targets[].status] | length == 5' out.json >/dev/null || fail "out.json must hold 5 target checks"
  fi
  grep -q '"reps": 3' out.json || fail "out.json rows must record 3 reps"
  expect_fail "bench reps below 20" "below 20" "$tide" bench fields --sizes 64 --reps 3
  expect_fail "bench bad movingai" "not a directory" "$tide" bench fields --quick --sizes 8 --reps 1 --movingai nope
  ;;
sim_wall_safety)
  # The issue's wall-safety scenario: 10,000 agents for 60 simulated seconds on the 256x256 benchmark map.
  "$tide" gen --seed 1 --out r256.tmap || fail "gen"
  "$tide" sim --map r256.tmap --goal 128,128 --agents 10000 --seconds 60 --json sim.json --png sim.png >out.txt 2>/dev/null ||
    { cat out.txt; fail "sim failed"; }
  for key in agents arrived_fraction arrived_by_second mean_arrival_s max_arrival_s no_path stuck wall_penetrations \
    max_overlap mean_step_ms max_step_ms state_hash; do
    grep -q "\"$key\"" sim.json || fail "sim.json has no $key"
  done
  grep -qE '"wall_penetrations": 0,?$' sim.json || fail "wall penetrations: $(grep wall_penetrations sim.json)"
  grep -qE '"nan": false,?$' sim.json || fail "NaN positions"
  grep -qE '"state_hash": "[0-9a-f]{16}"' sim.json || fail "state hash is not 16 hex digits"
  [ "$(head -c 8 sim.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "sim.png is not a PNG"
  "$tide" sim --map @default --goal 54,18 --agents 100 --seconds 3 --gif sim.gif >/dev/null 2>&1 || fail "sim --gif"
  [ "$(head -c 6 sim.gif)" = "GIF89a" ] || fail "sim.gif is not a GIF89a file"
  [ "$(stat -c %s sim.gif)" -gt 10000 ] || fail "sim.gif is suspiciously small (30 frames expected)"
  # Same seed, same result, whatever the thread count.
  h1=$("$tide" sim --map @default --goal 54,18 --agents 500 --seconds 5 --threads 1 2>/dev/null | grep -o 'state hash [0-9a-f]*')
  h2=$("$tide" sim --map @default --goal 54,18 --agents 500 --seconds 5 --threads 2 2>/dev/null | grep -o 'state hash [0-9a-f]*')
  [ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "state hash differs between 1 and 2 threads: '$h1' vs '$h2'"
  ;;
sim_bad_inputs)
  expect_fail "sim goal on wall" "is on a wall" "$tide" sim --map @default --goal 14,0 --agents 10
  expect_fail "sim zero agents" "outside 1..1000000" "$tide" sim --map @default --goal 54,18 --agents 0
  expect_fail "sim negative dt" "--dt must be" "$tide" sim --map @default --goal 54,18 --dt -1
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
*)
  fail "unknown case"
  ;;
esac
echo "PASS [$case_name]"
