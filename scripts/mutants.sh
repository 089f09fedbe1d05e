#!/usr/bin/env bash
# Mutation check: apply each deliberate bug in tests/mutants/*.patch to a scratch copy of the
# tree, rebuild (only what changed), run the tests that should catch it and report killed or
# SURVIVED. The working tree is never modified. Opt-in: `make mutants` (several minutes).
#
#   scripts/mutants.sh [--record] [--keep-going] [PATTERN...]
#
#   --record      also write the result to docs/mutants.md (date, commit, each mutant's outcome)
#   PATTERN       only the patches whose file name contains one of these strings
#
# Patch format: a few header lines, then a unified diff against the repository root (`patch -p1`):
#   # breaks: <what the mutant breaks, one line>
#   # tests: <ctest -R regex that should kill it>
#   # build: <cmake targets to rebuild, optional; default: all>
#   # timeout: <seconds per test, optional; default 300>
#   --- a/src/...
#   +++ b/src/...
#
# Outcomes: killed (a selected test failed or timed out), SURVIVED (all selected tests passed),
# error (the patch did not apply, the mutant did not compile, or its regex selects no test).
# Exit status: 0 when every mutant is killed, 1 otherwise.
#
# Scratch tree: build-mutants/src (tracked and untracked-but-not-ignored files of the working tree,
# copied only when their content differs, so rebuilds stay incremental); build dir: build-mutants/build.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=${MUTANTS_DIR:-$ROOT/build-mutants}
SRC=$WORK/src
BLD=$WORK/build
LOGS=$WORK/logs
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
RECORD=0
PATTERNS=()
for arg in "$@"; do
  case "$arg" in
    --record) RECORD=1 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "mutants: unknown option $arg" >&2; exit 2 ;;
    *) PATTERNS+=("$arg") ;;
  esac
done

START=$(date +%s)
mkdir -p "$SRC" "$BLD" "$LOGS"

# 1. Sync the scratch tree: copy a file only when its content differs (new mtime => rebuilt),
#    which also undoes any patch left behind by an interrupted run.
echo "mutants: syncing the scratch tree $SRC"
copied=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  if ! cmp -s "$f" "$SRC/$f"; then
    mkdir -p "$SRC/$(dirname "$f")"
    cp "$f" "$SRC/$f"
    copied=$((copied + 1))
  fi
done < <(git ls-files -z --cached --others --exclude-standard)
echo "mutants: $copied file(s) updated"

# Header fields of a patch.
field() { sed -n "s/^# $2: *//p" "$1" | head -1; }

patches=()
for p in tests/mutants/*.patch; do
  [ -f "$p" ] || continue
  if [ ${#PATTERNS[@]} -gt 0 ]; then
    keep=0
    for pat in "${PATTERNS[@]}"; do [[ "$(basename "$p")" == *"$pat"* ]] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  patches+=("$p")
done
[ ${#patches[@]} -gt 0 ] || { echo "mutants: no patches selected" >&2; exit 1; }

# The targets to build: the union of the patches' `# build:` lines, or everything when one has none.
targets=()
for p in "${patches[@]}"; do
  t=$(field "$p" build)
  if [ -z "$t" ]; then targets=(all); break; fi
  for x in $t; do [[ " ${targets[*]} " == *" $x "* ]] || targets+=("$x"); done
done
build() { # log targets...
  local log=$1; shift
  cmake --build "$BLD" -j"$JOBS" --target "$@" >>"$log" 2>&1
}

# 2. Configure once, build once (later builds recompile only what a patch touched).
if [ ! -f "$BLD/CMakeCache.txt" ]; then
  # Ninja when the machine has it (faster no-op checks), else the default generator.
  generator=()
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  cmake -S "$SRC" -B "$BLD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTIDE_BUILD_APPS=ON -DTIDE_BUILD_TESTS=ON -DTIDE_BUILD_BENCH=OFF >"$LOGS/configure.log" 2>&1 \
    || { cat "$LOGS/configure.log"; echo "mutants: configure failed" >&2; exit 1; }
fi
echo "mutants: building the unmutated tree (${targets[*]}; the first run takes several minutes)"
: >"$LOGS/build-base.log"
if ! build "$LOGS/build-base.log" "${targets[@]}"; then
  tail -40 "$LOGS/build-base.log"; echo "mutants: the unmutated tree does not build" >&2; exit 1
fi

run_tests() { # regex timeout log
  (cd "$BLD" && ctest -R "$1" --timeout "$2" -j"$JOBS" --output-on-failure --no-tests=error) >"$3" 2>&1
}

# 3. Baseline: every selected regex must pass on the unmutated tree, else "killed" means nothing.
regexes=()
# Joined without extra parentheses: CMake's regex engine allows only 9 groups in one expression.
for p in "${patches[@]}"; do regexes+=("$(field "$p" tests)"); done
union=$(IFS='|'; echo "${regexes[*]}")
echo "mutants: baseline run of the selected tests"
if ! run_tests "$union" 300 "$LOGS/baseline.log"; then
  grep -E "Failed|\*\*\*|tests failed" "$LOGS/baseline.log" | tail -20
  echo "mutants: the selected tests fail on the unmutated tree (log: $LOGS/baseline.log)" >&2
  exit 1
fi

# 4. One mutant at a time.
names=(); outcomes=(); details=(); secs=(); breaks=(); tests=()
nkilled=0; nsurvived=0; nerror=0
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  regex=$(field "$p" tests); what=$(field "$p" breaks); tmo=$(field "$p" timeout); tmo=${tmo:-300}
  read -r -a ptargets <<<"$(field "$p" build)"; [ ${#ptargets[@]} -gt 0 ] || ptargets=(all)
  t0=$(date +%s)
  log=$LOGS/$name.log
  outcome=error; detail=
  if [ -z "$regex" ]; then
    detail="no '# tests:' line"
  elif ! patch -p1 -d "$SRC" --forward --batch --silent <"$p" >"$log" 2>&1; then
    detail="patch does not apply"
    patch -p1 -R -d "$SRC" --batch --silent --dry-run <"$p" >/dev/null 2>&1 \
      && patch -p1 -R -d "$SRC" --batch --silent <"$p" >/dev/null 2>&1
  else
    if ! build "$log" "${ptargets[@]}"; then
      detail="does not compile"
    elif run_tests "$regex" "$tmo" "$log.tests"; then
      outcome=SURVIVED; detail="all selected tests pass"
    elif grep -q "No tests were found" "$log.tests"; then
      detail="regex selects no test"
    else
      outcome=killed
      detail=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(Failed|Timeout|Exception|Not Run)' "$log.tests" \
        | sed -E 's/.*Test +#[0-9]+: ([^ ]+).*/\1/' | head -3 | paste -sd, -)
      nfail=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(Failed|Timeout|Exception|Not Run)' "$log.tests")
      [ "$nfail" -gt 3 ] && detail="$detail, ... ($nfail failed)"
    fi
    if ! patch -p1 -R -d "$SRC" --batch --silent <"$p" >>"$log" 2>&1; then
      echo "mutants: could not reverse $p in $SRC" >&2; exit 1
    fi
  fi
  t1=$(date +%s)
  case $outcome in killed) nkilled=$((nkilled + 1)) ;; SURVIVED) nsurvived=$((nsurvived + 1)) ;; *) nerror=$((nerror + 1)) ;; esac
  names+=("$name"); outcomes+=("$outcome"); details+=("$detail"); secs+=($((t1 - t0)))
  breaks+=("$what"); tests+=("$regex")
  printf '  %-28s %-9s %4ss  %s\n' "$name" "$outcome" $((t1 - t0)) "$detail"
done

# Leave the scratch build matching the unmutated tree (the last revert changed a file's mtime).
build "$LOGS/build-final.log" "${targets[@]}" || true

END=$(date +%s)
total=${#names[@]}
summary="$nkilled/$total killed, $nsurvived survived, $nerror error(s) in $((END - START)) s"
echo
printf '%-28s %-9s %6s  %s\n' mutant outcome time "failing tests / reason"
for i in "${!names[@]}"; do
  printf '%-28s %-9s %5ss  %s\n' "${names[$i]}" "${outcomes[$i]}" "${secs[$i]}" "${details[$i]}"
done
echo "mutants: $summary"

if [ $RECORD = 1 ]; then
  commit=$(git rev-parse --short HEAD)
  dirty=$(git status --porcelain --untracked-files=no | grep -q . && echo " (working tree with uncommitted changes)")
  {
    echo "# Mutation check"
    echo
    echo "Deliberate bugs (\`tests/mutants/*.patch\`) applied one at a time to a scratch copy of the tree by"
    echo "\`make mutants\` (\`scripts/mutants.sh\`); each must make the tests named in its header fail."
    echo "Regenerate with \`make mutants MUTANTS_ARGS=--record\`. Every bug fixed from now on adds a"
    echo "mutant here: the fix's reverse as a patch, with the tests that must catch it."
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Commit: $commit$dirty"
    echo "- Machine: $(nproc) cores, $(uname -sm); Release build, $JOBS jobs"
    echo "- Result: $summary"
    echo
    echo "| Mutant | Breaks | Tests (ctest -R) | Outcome | Time | Failing tests / reason |"
    echo "|---|---|---|---|---|---|"
    for i in "${!names[@]}"; do
      printf '| %s | %s | `%s` | %s | %s s | %s |\n' "${names[$i]}" "${breaks[$i]}" "${tests[$i]//|/\\|}" \
        "${outcomes[$i]}" "${secs[$i]}" "${details[$i]}"
    done
  } >docs/mutants.md
  echo "mutants: wrote docs/mutants.md"
fi

[ $nsurvived = 0 ] && [ $nerror = 0 ]
