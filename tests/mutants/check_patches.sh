#!/usr/bin/env bash
# The mutants cannot rot: every deliberate bug in tests/mutants/*.patch must still apply to the
# tree exactly (a dry run of `patch -p1 --fuzz=0`: no build, nothing written), carry its header
# lines, and, given a build directory, its `# tests:` regex must select at least one test there
# (a renamed test would otherwise leave its mutants guarded by nothing).
# Run by `make test` (ctest label mutants); scripts/mutants.sh applies the same patches for real.
#
#   tests/mutants/check_patches.sh SOURCE_DIR [BUILD_DIR]
#
# tests/mutants/SKIP lists patches left out for now, one a line: `<name> <reason>` (# comments).
# Each is printed as skipped; a listed patch that applies again, or that no longer exists, fails
# the check, so the list empties as the patches are refreshed.
set -uo pipefail

SRC=${1:?usage: check_patches.sh SOURCE_DIR [BUILD_DIR]}
BLD=${2:-}
DIR=$SRC/tests/mutants
command -v patch >/dev/null 2>&1 || { echo "mutants: 'patch' is not installed (make deps installs it)" >&2; exit 1; }

# name -> reason, from the skip list.
declare -A skip=()
if [ -f "$DIR/SKIP" ]; then
  while IFS= read -r line; do
    line=${line%%#*}
    read -r name reason <<<"$line"
    [ -n "${name:-}" ] || continue
    skip[${name%.patch}]=${reason:-no reason given}
  done <"$DIR/SKIP"
fi

# The regexes are matched by ctest itself (CMake's regex dialect), against a copy of the build's
# test lists: a ctest run, even `ctest -N`, rewrites its Testing/ logs, which belong to the ctest
# run that runs this check.
LISTS=
if [ -n "$BLD" ]; then
  LISTS=$(mktemp -d)
  trap 'rm -rf "$LISTS"' EXIT
  while IFS= read -r -d '' f; do
    mkdir -p "$LISTS/$(dirname "$f")" && cp "$BLD/$f" "$LISTS/$f"
  done < <(cd "$BLD" && find . -name CTestTestfile.cmake -print0)
fi

failed=0
checked=0
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
for p in "$DIR"/*.patch; do
  [ -f "$p" ] || continue
  name=$(basename "$p" .patch)
  out=$(patch -p1 -d "$SRC" --dry-run --forward --batch --fuzz=0 <"$p" 2>&1)
  applies=$?
  if [ -n "${skip[$name]+x}" ]; then
    if [ $applies = 0 ]; then
      fail "$name" "listed in tests/mutants/SKIP but applies again: remove it from the list"
    else
      echo "skipped $name: ${skip[$name]}"
    fi
    unset "skip[$name]"
    continue
  fi
  checked=$((checked + 1))
  if [ $applies != 0 ]; then
    # "checking file X" precedes each file's hunks: name the files whose hunks failed.
    files=$(awk '/^checking file /{f=substr($0, 15)} /FAILED|Reversed|previously applied|can.t find file/{print f}' \
      <<<"$out" | sort -u | paste -sd' ' -)
    fail "$name" "no longer applies to ${files:-the tree}"
    sed 's/^/    /' <<<"$out"
    continue
  fi
  for key in breaks tests; do
    grep -q "^# $key: *[^ ]" "$p" || fail "$name" "no '# $key:' header line"
  done
  if [ -n "$BLD" ]; then
    regex=$(sed -n 's/^# tests: *//p' "$p" | head -1)
    if [ -n "$regex" ]; then
      n=$(ctest --test-dir "$LISTS" -N -R "$regex" 2>/dev/null | sed -n 's/^Total Tests: //p')
      [ "${n:-0}" -gt 0 ] || fail "$name" "its '# tests:' regex selects no test in $BLD: $regex"
    fi
  fi
done
for name in "${!skip[@]}"; do
  fail "$name" "listed in tests/mutants/SKIP, but tests/mutants/$name.patch does not exist"
done

echo "mutants: $checked patch(es) checked, ${failed} failure(s)"
[ $failed = 0 ]
