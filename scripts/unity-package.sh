#!/usr/bin/env bash
# Assembles the Unity package (bindings/unity) with the C# binding and this machine's native
# library: build/unity/com.tide.flowfield, ready for Unity's Package Manager ("Add package from
# disk", its package.json). Run after `make build` (which makes build/lib/libtide_c.so).
#   scripts/unity-package.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
lib=$build/lib/libtide_c.so
[ -f "$lib" ] || { echo "unity-package: $lib is missing: run make build first" >&2; exit 1; }
out=$build/unity/com.tide.flowfield
rm -rf "$out" && mkdir -p "$out/Runtime/Plugins/Linux/x86_64"
cp -r "$root/bindings/unity/package.json" "$root/bindings/unity/Samples~" "$out/"
cp "$root/bindings/unity/Runtime/Tide.Runtime.asmdef" "$root/bindings/csharp/Tide.cs" "$out/Runtime/"
cp "$root/bindings/unity/Plugins/README.md" "$out/Runtime/Plugins/"
cp "$lib" "$out/Runtime/Plugins/Linux/x86_64/"
echo "unity-package: $out (Linux x86-64 plugin; other platforms: Runtime/Plugins/README.md)"
