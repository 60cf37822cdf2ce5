#!/usr/bin/env bash
# Builds the DocC catalog of every library module (Packages/*/Sources/<Module>/<Module>.docc) with the docc that
# ships with the toolchain: symbol graphs from `swift package dump-symbol-graph`, then `docc convert` per module.
# Fails on any DocC error and on any link that does not resolve (a renamed or removed symbol).
# Usage: Tools/docs/build-docc.sh [--package Packages/X]... [OUTPUT_DIR] [-- BUILD_OPTIONS...]
#   --package: only these packages (default: every one under Packages/).
#   OUTPUT_DIR: default .build/docc (reuses the workspace's .build as the scratch path).
#   BUILD_OPTIONS: passed to `swift package` for the build behind the symbol graphs. Give the same flags as the
#   workspace build (.ci/run passes `-Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error`):
#   a build with other flags recompiles every module of the package, and the next workspace build compiles them back.
set -euo pipefail
cd "$(dirname "$0")/../.."
packages=()
out=.build/docc
build=()
while [ $# -gt 0 ]; do
    case "$1" in
    --package) packages+=("${2%/}/"); shift 2 ;;
    --) shift; build=("$@"); break ;;
    *) out="$1"; shift ;;
    esac
done
[ ${#packages[@]} -gt 0 ] || packages=(Packages/*/ ConformanceTests/)
mkdir -p "$out"
graphs=".build/symbolgraph-docc"
# Modules whose every public symbol must be documented (the others' count is printed).
documented="OpenCatConformance StoreAdapters"
status=0
for package in "${packages[@]}"; do
    name=$(basename "$package")
    # Test targets have no symbol graph and make the command exit non-zero: the library graphs are still written.
    dumped=$( (swift package --package-path "$package" --scratch-path .build ${build[@]+"${build[@]}"} dump-symbol-graph 2>&1 || true) \
        | sed -n 's/^Files written to //p')
    [ -n "$dumped" ] || { echo "docc: $name: no symbol graphs"; status=1; continue; }
    for catalog in "$package"Sources/*/*.docc; do
        [ -d "$catalog" ] || continue
        module=$(basename "$catalog" .docc)
        rm -rf "$graphs/$module" && mkdir -p "$graphs/$module"
        [ -f "$dumped/$module.symbols.json" ] || { echo "docc: $module: no symbol graph"; status=1; continue; }
        cp "$dumped/$module".symbols.json "$dumped/$module"@*.symbols.json "$graphs/$module/" 2>/dev/null || true
        log=$(docc convert "$catalog" --additional-symbol-graph-dir "$graphs/$module" \
            --output-path "$out/$module" --fallback-display-name "$module" \
            --fallback-bundle-identifier "dev.opencat.$module" 2>&1) || { echo "$log"; status=1; continue; }
        broken=$(echo "$log" | grep -E "^(error|warning): .*(doesn't exist|isn't unambiguous|cannot be resolved)" || true)
        if [ -n "$broken" ]; then
            echo "$log" | grep -A6 -E "^(error|warning): .*(doesn't exist|isn't unambiguous|cannot be resolved)"
            echo "docc: $module: broken links"; status=1
        else
            warnings=$(echo "$log" | grep -cE "^warning:" || true)
            echo "docc: $module built ($warnings documentation warnings)"
        fi
        # Every public symbol declared in the module's sources has a doc comment (synthesized members aside): held
        # for the modules in $documented, reported for the others.
        undocumented=$(python3 - "$graphs/$module" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.symbols.json")):
    for symbol in json.load(open(path))["symbols"]:
        if symbol.get("accessLevel") in ("public", "open") and "location" in symbol and not symbol.get("docComment"):
            print(".".join(symbol["pathComponents"]))
PY
)
        if [ -n "$undocumented" ]; then
            count=$(echo "$undocumented" | wc -l)
            if [[ " $documented " == *" $module "* ]]; then
                echo "$undocumented" | sed 's/^/docc: undocumented: /'; echo "docc: $module: $count public symbols without documentation"; status=1
            else
                echo "docc: $module: $count public symbols without documentation"
            fi
        fi
    done
done
exit $status
