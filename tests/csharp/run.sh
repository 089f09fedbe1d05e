#!/usr/bin/env bash
# The C# binding's tests (ctest csharp): builds bindings/csharp/Tide.cs and tests/csharp/TideTests.cs
# with Mono's mcs, asks the native CLI for a field and the C example for the order loop's state
# hash, and runs the tests under mono against libtide_c.
#   run.sh TIDE_CLI EXAMPLE_WORLD LIBDIR WORKDIR REPO_ROOT
set -euo pipefail
tide=$1 example=$2 libdir=$3 work=$4 root=$5
for tool in mcs mono; do
  command -v "$tool" >/dev/null || { echo "csharp: '$tool' is not installed (scripts/install-deps.sh --test installs mono-mcs and mono-runtime)"; exit 1; }
done
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# -warnaserror: the binding builds clean; -doc: every public member has its XML comment (CS1591 otherwise).
mcs -nologo -warnaserror -warn:4 -target:library -doc:Tide.xml -out:Tide.dll "$root/bindings/csharp/Tide.cs"
mcs -nologo -warnaserror -out:TideTests.exe -r:Tide.dll "$root/tests/csharp/TideTests.cs"
"$tide" field --map "$root/examples/arena.map" --goal 22,6 --dist-csv dist.csv >/dev/null
hash=$("$example" | awk '/^state hash/ {print $3}')
[ -n "$hash" ] || { echo "csharp: the C example printed no state hash"; exit 1; }
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono TideTests.exe "$root/examples/arena.map" dist.csv 22 6 "$hash"
# The Unity sample (bindings/unity/Samples~/Crowd) against stand-ins for the UnityEngine types it uses.
mcs -nologo -warnaserror -out:UnitySample.exe -r:Tide.dll "$root/tests/csharp/UnityStandIns.cs" \
  "$root/bindings/unity/Samples~/Crowd/FlowFieldManager.cs" "$root/bindings/unity/Samples~/Crowd/FlowFieldAgent.cs" \
  "$root/tests/csharp/UnitySampleTests.cs"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono UnitySample.exe
# The Unity package assembles, and its Runtime compiles on its own (what Unity's compiler sees).
bash "$root/scripts/unity-package.sh" "$libdir/.." >/dev/null
pkg="$libdir/../unity/com.tide.flowfield"
for f in package.json Runtime/Tide.cs Runtime/Tide.Runtime.asmdef Runtime/Plugins/Linux/x86_64/libtide_c.so \
  Samples~/Crowd/FlowFieldManager.cs Samples~/Crowd/FlowFieldAgent.cs; do
  [ -f "$pkg/$f" ] || { echo "csharp: the Unity package lacks $f"; exit 1; }
done
mcs -nologo -warnaserror -target:library -out:PackageRuntime.dll "$pkg/Runtime/Tide.cs"
echo "unity package: assembled and its Runtime compiles ($pkg)"
