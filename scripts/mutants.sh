#!/usr/bin/env bash
# Mutation check: apply each deliberate bug in tests/mutants/*.patch to a scratch copy of the
# tree, rebuild (only what changed), run the tests that should catch it and report killed or
# SURVIVED. The working tree is never modified. Opt-in: `make mutants` (several minutes).
#
#   scripts/mutants.sh [--record] [--rev REV] [PATTERN...]
#
#   --record      also write the result to docs/mutants.md (date, commit, each mutant's outcome)
#   --rev REV     mutate the tree of commit REV (git archive) instead of the working tree: a run
#                 undisturbed by edits in progress; the patches are still read from the working tree
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
# Outcomes: killed (a selected test failed, crashed or timed out), SURVIVED (all selected tests
# passed), error (the patch does not apply exactly, the mutant does not compile, its regex selects
# no test, or a test could not run), skipped (listed in tests/mutants/SKIP, with its reason).
# Exit status: 0 when every mutant not skipped is killed, 1 otherwise.
# `make test` checks that every patch still applies (tests/mutants/check_patches.sh).
#
# Scratch tree: build-mutants/src (tracked and untracked-but-not-ignored files of the working tree,
# copied only when their content differs, so rebuilds stay incremental); build dir: build-mutants/build.
# Each mutant starts from the synced files and leaves none behind: after every mutant, applied or
# not, the files its patch names are restored from a copy taken at the sync.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=${MUTANTS_DIR:-$ROOT/build-mutants}
SRC=$WORK/src
BLD=$WORK/build
LOGS=$WORK/logs
PRISTINE=$WORK/pristine
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
RECORD=0
PATTERNS=()
REV=
while [ $# -gt 0 ]; do
  arg=$1; shift
  case "$arg" in
    --record) RECORD=1 ;;
    --rev) REV=${1:?--rev needs a commit}; shift ;;
    --rev=*) REV=${arg#--rev=} ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "mutants: unknown option $arg" >&2; exit 2 ;;
    *) PATTERNS+=("$arg") ;;
  esac
done
command -v patch >/dev/null 2>&1 || { echo "mutants: 'patch' is not installed (make deps installs it)" >&2; exit 1; }

START=$(date +%s)
mkdir -p "$SRC" "$BLD" "$LOGS"

# 1. Sync the scratch tree: copy a file only when its content differs (new mtime => rebuilt),
#    which also undoes any patch left behind by an interrupted run; files the working tree no
#    longer has (a .rej, a file a patch created, a deleted source) are removed.
# What the record names: the commit synced, resolved now (HEAD may move while the run goes on).
FROM=$ROOT
if [ -n "$REV" ]; then
  commit=$(git rev-parse --verify --quiet "$REV^{commit}") || { echo "mutants: $REV is not a commit" >&2; exit 2; }
  RUN_COMMIT=$(git rev-parse --short "$commit"); RUN_DIRTY=
  FROM=$WORK/export
  rm -rf "$FROM" && mkdir -p "$FROM" && git archive "$commit" | tar -x -C "$FROM" \
    || { echo "mutants: could not export $REV" >&2; exit 1; }
  echo "mutants: syncing the scratch tree $SRC from commit $(git rev-parse --short "$commit")"
else
  RUN_COMMIT=$(git rev-parse --short HEAD)
  RUN_DIRTY=$(git status --porcelain --untracked-files=no | grep -q . && echo " (working tree with uncommitted changes)")
  echo "mutants: syncing the scratch tree $SRC from the working tree"
fi
source_files() {
  if [ -n "$REV" ]; then (cd "$FROM" && find . -type f -printf '%P\0'); else git ls-files -z --cached --others --exclude-standard; fi
}
copied=0
declare -A tracked=()
while IFS= read -r -d '' f; do
  [ -f "$FROM/$f" ] || continue
  tracked[$f]=1
  if ! cmp -s "$FROM/$f" "$SRC/$f"; then
    mkdir -p "$SRC/$(dirname "$f")"
    cp "$FROM/$f" "$SRC/$f"
    copied=$((copied + 1))
  fi
done < <(source_files)
removed=0
while IFS= read -r -d '' f; do
  f=${f#"$SRC"/}
  if [ -z "${tracked[$f]+x}" ]; then rm -f "$SRC/$f"; removed=$((removed + 1)); fi
done < <(find "$SRC" -type f -print0)
echo "mutants: $copied file(s) updated, $removed removed"

# Header fields of a patch.
field() { sed -n "s/^# $2: *//p" "$1" | head -1; }
# The files a patch names (-p1: without the a/ or b/ prefix), one a line.
patch_files() {
  sed -n -E 's#^(\+\+\+|---) [ab]/([^[:space:]]+).*#\2#p' "$1" | sort -u
}

# The skip list: name -> reason.
declare -A skip=()
if [ -f tests/mutants/SKIP ]; then
  while IFS= read -r line; do
    line=${line%%#*}
    read -r sname sreason <<<"$line"
    [ -n "${sname:-}" ] && skip[${sname%.patch}]=${sreason:-no reason given}
  done <tests/mutants/SKIP
fi

patches=(); skipped=()
for p in tests/mutants/*.patch; do
  [ -f "$p" ] || continue
  if [ ${#PATTERNS[@]} -gt 0 ]; then
    keep=0
    for pat in "${PATTERNS[@]}"; do [[ "$(basename "$p")" == *"$pat"* ]] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  if [ -n "${skip[$(basename "$p" .patch)]+x}" ]; then skipped+=("$p"); else patches+=("$p"); fi
done
if [ ${#patches[@]} = 0 ]; then
  for p in "${skipped[@]}"; do echo "mutants: $(basename "$p" .patch) is skipped (tests/mutants/SKIP)"; done
  echo "mutants: no patches selected" >&2; exit 1
fi

# Copies of every file the selected patches name, as synced: what each mutant is undone to.
rm -rf "$PRISTINE"
mkdir -p "$PRISTINE"
for p in "${patches[@]}"; do
  while IFS= read -r f; do
    if [ -f "$SRC/$f" ] && [ ! -f "$PRISTINE/$f" ]; then
      mkdir -p "$PRISTINE/$(dirname "$f")"
      cp -p "$SRC/$f" "$PRISTINE/$f"
    fi
  done < <(patch_files "$p")
done
# Puts the files patch $1 names back as synced (only those that differ, so the build sees no
# change otherwise); removes what the patch left beside them (.orig, .rej) and files it created.
# Fails when a file cannot be restored.
restore() {
  local f ok=0
  while IFS= read -r f; do
    rm -f "$SRC/$f.orig" "$SRC/$f.rej"
    if [ -f "$PRISTINE/$f" ]; then
      if ! cmp -s "$PRISTINE/$f" "$SRC/$f"; then
        mkdir -p "$SRC/$(dirname "$f")"
        cp "$PRISTINE/$f" "$SRC/$f"  # a new mtime: the next build recompiles it
        cmp -s "$PRISTINE/$f" "$SRC/$f" || ok=1
      fi
    else
      rm -f "$SRC/$f"
      [ ! -e "$SRC/$f" ] || ok=1
    fi
  done < <(patch_files "$1")
  return $ok
}

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
scratch="scratch build reused"
if [ ! -f "$BLD/CMakeCache.txt" ]; then
  scratch="scratch build made from nothing in this run"
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

# The ctest numbers of the tests a regex selects, one a line.
test_numbers() {
  (cd "$BLD" && ctest -N -R "$1") 2>/dev/null | sed -n -E 's/^ *Test +#([0-9]+):.*/\1/p'
}
run_tests() { # log timeout ctest-selection...
  local log=$1 tmo=$2; shift 2
  (cd "$BLD" && ctest "$@" --timeout "$tmo" -j"$JOBS" --output-on-failure --no-tests=error) >"$log" 2>&1
}
# Lines of ctest's output for tests that ran and failed; tests that could not run are errors.
failed_lines() { grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Exit code)' "$1"; }
notrun_lines() { grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(Not Run|Could not find executable)' "$1"; }

# 3. Baseline: every selected test must pass on the unmutated tree, else "killed" means nothing.
#    The union of the regexes' tests by number (one regex could hold more groups than CMake allows).
declare -A selected=()
for p in "${patches[@]}"; do
  regex=$(field "$p" tests)
  [ -n "$regex" ] || continue
  while IFS= read -r n; do selected[$n]=1; done < <(test_numbers "$regex")
done
if [ ${#selected[@]} -gt 0 ]; then
  list=$(printf '%s\n' "${!selected[@]}" | sort -n | paste -sd, -)
  echo "mutants: baseline run of the ${#selected[@]} selected tests"
  if ! run_tests "$LOGS/baseline.log" 300 -I "0,0,0,$list"; then
    grep -E "Failed|\*\*\*|tests failed|Not Run" "$LOGS/baseline.log" | tail -20
    echo "mutants: the selected tests fail on the unmutated tree (log: $LOGS/baseline.log)" >&2
    exit 1
  fi
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
  rm -f "$log.tests"
  outcome=error; detail=
  # A file left different by anything before (it cannot be, but the check is cheap) is restored.
  restore "$p" || { echo "mutants: could not restore the files of $p in $SRC" >&2; exit 1; }
  if [ -z "$regex" ]; then
    detail="no '# tests:' line"
  elif [ -z "$(test_numbers "$regex")" ]; then
    detail="regex selects no test"
  elif ! patch -p1 -d "$SRC" --dry-run --forward --batch --fuzz=0 <"$p" >"$log" 2>&1; then
    files=$(awk '/^checking file /{f=substr($0, 15)} /FAILED|Reversed|previously applied|can.t find file/{print f}' \
      "$log" | sort -u | paste -sd' ' -)
    detail="patch does not apply to ${files:-the tree}"
  elif ! patch -p1 -d "$SRC" --forward --batch --fuzz=0 --no-backup-if-mismatch --reject-file=- <"$p" >>"$log" 2>&1; then
    detail="patch failed to apply"
  elif ! build "$log" "${ptargets[@]}"; then
    detail="does not compile (log: $log)"
  elif run_tests "$log.tests" "$tmo" -R "$regex"; then
    outcome=SURVIVED; detail="all selected tests pass"
  elif notrun_lines "$log.tests" >/dev/null; then
    detail="a test could not run: $(notrun_lines "$log.tests" | sed -E 's/.*Test +#[0-9]+: ([^ ]+).*/\1/' | head -3 | paste -sd, -)"
  elif failed_lines "$log.tests" >/dev/null; then
    outcome=killed
    detail=$(failed_lines "$log.tests" | sed -E 's/.*Test +#[0-9]+: ([^ ]+).*/\1/' | head -3 | paste -sd, -)
    nfail=$(failed_lines "$log.tests" | wc -l)
    [ "$nfail" -gt 3 ] && detail="$detail, ... ($nfail failed)"
  else
    detail="ctest failed without a failing test (log: $log.tests)"
  fi
  # Whatever happened, the files the patch names go back as synced before the next mutant.
  restore "$p" || { echo "mutants: could not restore the files of $p in $SRC" >&2; exit 1; }
  t1=$(date +%s)
  case $outcome in killed) nkilled=$((nkilled + 1)) ;; SURVIVED) nsurvived=$((nsurvived + 1)) ;; *) nerror=$((nerror + 1)) ;; esac
  names+=("$name"); outcomes+=("$outcome"); details+=("$detail"); secs+=($((t1 - t0)))
  breaks+=("$what"); tests+=("$regex")
  printf '  %-34s %-9s %4ss  %s\n' "$name" "$outcome" $((t1 - t0)) "$detail"
done
for p in "${skipped[@]}"; do
  name=$(basename "$p" .patch)
  names+=("$name"); outcomes+=(skipped); details+=("tests/mutants/SKIP: ${skip[$name]}"); secs+=(0)
  breaks+=("$(field "$p" breaks)"); tests+=("$(field "$p" tests)")
  printf '  %-34s %-9s %4ss  %s\n' "$name" skipped 0 "tests/mutants/SKIP: ${skip[$name]}"
done

# Leave the scratch build matching the unmutated tree (the last restore changed a file's mtime).
build "$LOGS/build-final.log" "${targets[@]}" || true

END=$(date +%s)
total=$((nkilled + nsurvived + nerror))
summary="$nkilled/$total killed, $nsurvived survived, $nerror error(s), ${#skipped[@]} skipped in $((END - START)) s"
echo
printf '%-34s %-9s %6s  %s\n' mutant outcome time "failing tests / reason"
for i in "${!names[@]}"; do
  printf '%-34s %-9s %5ss  %s\n' "${names[$i]}" "${outcomes[$i]}" "${secs[$i]}" "${details[$i]}"
done
echo "mutants: $summary"

if [ $RECORD = 1 ]; then
  {
    echo "# Mutation check"
    echo
    echo "Deliberate bugs (\`tests/mutants/*.patch\`) applied one at a time to a scratch copy of the tree by"
    echo "\`make mutants\` (\`scripts/mutants.sh\`); each must make the tests named in its header fail."
    echo "Regenerate with \`make mutants MUTANTS_ARGS=--record\`. Every bug fixed from now on adds a"
    echo "mutant here: the fix's reverse as a patch, with the tests that must catch it. \`make test\`"
    echo "checks that every patch still applies exactly (\`tests/mutants/check_patches.sh\`, ctest"
    echo "\`mutants.apply\`): a change to the code a patch touches refreshes the patch in the same commit."
    echo "Patches listed in \`tests/mutants/SKIP\` are reported as skipped, with the reason, until refreshed."
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Commit: $RUN_COMMIT$RUN_DIRTY"
    echo "- Machine: $(nproc) cores, $(uname -sm); Release build, $JOBS jobs"
    echo "- Command: \`scripts/mutants.sh${REV:+ --rev $REV}${PATTERNS[*]:+ ${PATTERNS[*]}}\` ($scratch)"
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
