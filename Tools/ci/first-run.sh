#!/usr/bin/env bash
# Time to first result, as a new user meets it: clones this repository into a scratch folder and times the README's
# first command cold (`swift run opencat conformance`: resolve, build, run the matrix), then each Examples/ package's
# cold build from a clean scratch path of its own. Prints one line per measurement; docs/BENCHMARKS.md records them.
# Usage: bash Tools/ci/first-run.sh [--no-examples] [SCRATCH]   (default SCRATCH: a new folder under /tmp)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
examples=1
if [ "${1:-}" = --no-examples ]; then examples=0; shift; fi
scratch="${1:-$(mktemp -d /tmp/opencat-first-run.XXXXXX)}"
mkdir -p "$scratch"
clone="$scratch/opencat"
rm -rf "$clone"
git clone -q "$root" "$clone"
cd "$clone"
echo "first-run: $(nproc) cores, $(swift --version 2>/dev/null | head -1)"
t0=$(date +%s)
# A cache of its own, so that nothing resolved before helps (the packages still come from this machine's mirrors).
swift run --cache-path "$scratch/cache" opencat conformance > "$scratch/conformance.log" 2>&1 || { tail -20 "$scratch/conformance.log"; exit 1; }
t1=$(date +%s)
built=$(grep -m1 -E '^Build of product|Build complete' "$scratch/conformance.log" || true)
echo "first-run: swift run opencat conformance, cold: $((t1 - t0)) s to the matrix ($built)"
{ grep -E '^[0-9]+ stores x [0-9]+ scenarios' "$scratch/conformance.log" || true; } | head -1 | sed 's/^/first-run: /'
if [ $examples = 1 ]; then
    for example in Examples/*/; do
        name=$(basename "$example")
        s0=$(date +%s)
        swift build --package-path "$example" --scratch-path "$scratch/example-$name" --cache-path "$scratch/cache" --build-tests \
            > "$scratch/example-$name.log" 2>&1 || { tail -20 "$scratch/example-$name.log"; exit 1; }
        echo "first-run: Examples/$name cold build (with its tests): $(( $(date +%s) - s0 )) s"
    done
fi
echo "first-run: logs in $scratch"
