#!/usr/bin/env bash
# Checks what the architecture promises and a build would not catch (docs/DECISIONS.md D26):
# - the kernel (OpenCatCore) and every sibling's production target link no GRDB, no NIO, no Hummingbird;
# - no production target depends on OpenCatTesting, and ManualClock / MockAppleCA are defined only there;
# - production packages depend on no sibling but OpenCatCore;
# - no function, initialiser, accessor or closure body in the Swift sources of Packages/, Tools/ and ConformanceTests/
#   is longer than the limit in Tools/ci/check-function-length.py (a brace counter that ignores strings and comments);
# - nothing blocks a thread of Swift concurrency: no Process.waitUntilExit, readDataToEndOfFile, availableData,
#   DispatchSemaphore.wait or Thread.sleep anywhere in the tree (a line marked `blocking-ok:` runs on a thread of its
#   own, never in async code);
# - tests sleep for real nowhere but in OpenCatTesting's waitUntil (docs/TESTING.md);
# - no shipped executable under Tools/ imports test support (OpenCatTesting, MockAppleCA, ManualClock);
# - with --linked: each executable links only what its job uses (reads the link lists of a finished build);
# - with --example-linked SCRATCH: the adapter author's example package, tested in SCRATCH, links none of PostgresNIO,
#   NIOSSL, AsyncHTTPClient, ZIPFoundation or GRDB (read from its test bundle's link list), and its adapter library
#   links no MockStores, Hummingbird, NIO or OpenCatTesting (read from the library's own link list).
set -euo pipefail
cd "$(dirname "$0")/../.."
status=0
for package in Packages/*/; do
    swift package --package-path "$package" describe --type json 2>/dev/null
    echo
done | python3 -c '
import json, sys
text = sys.stdin.read()
decoder, index, packages = json.JSONDecoder(), 0, []
while index < len(text):
    while index < len(text) and text[index].isspace(): index += 1
    if index >= len(text): break
    package, index = decoder.raw_decode(text, index)
    packages.append(package)
production = {"OpenCatCore", "OpenCat", "OpenCatAsyncHTTPClient", "StoreAdapters", "KeyServerClient",
              "ChippiPayClient", "LLMKeyResolver", "KeyServerAPI", "OpenCatLicense", "OpenCatServerAPI",
              "OpenCatStorage"}
# What each production target may link, besides its own package: the kernel links no storage and no server stack.
forbidden = {"OpenCatCore": {"GRDB", "NIOCore", "AsyncHTTPClient", "Hummingbird"},
             "StoreAdapters": {"GRDB", "NIOCore", "AsyncHTTPClient", "Hummingbird", "OpenCat", "OpenCatTesting"}}
# Siblings that keep state use the storage product (the encrypted cache and the outbox), never the device SDK.
for sibling in ("KeyServerClient", "ChippiPayClient", "LLMKeyResolver"):
    forbidden[sibling] = {"OpenCat", "OpenCatTesting"}
forbidden["OpenCatStorage"] = {"NIOCore", "AsyncHTTPClient", "Hummingbird", "OpenCat", "OpenCatTesting"}
# The wire contracts and licences: what servers link beside the clients, so no storage, no device SDK, no server stack.
for contract in ("KeyServerAPI", "OpenCatLicense", "OpenCatServerAPI"):
    forbidden[contract] = {"GRDB", "NIOCore", "AsyncHTTPClient", "Hummingbird", "OpenCat", "OpenCatStorage",
                           "KeyServerClient", "OpenCatTesting"}
problems = []
for package in packages:
    for target in package["targets"]:
        name = target["name"]
        if target["type"] != "library" or name not in production: continue
        products = set(target.get("product_dependencies", []))
        targets = set(target.get("target_dependencies", []))
        if "OpenCatTesting" in products | targets:
            problems.append(f"{name} (production) depends on OpenCatTesting")
        for bad in forbidden.get(name, {"OpenCatTesting"}) & (products | targets):
            problems.append(f"{name} links {bad}")
        if package["name"] != "OpenCatCore":
            siblings = {d["identity"] for d in package.get("dependencies", []) if d.get("type") == "fileSystem"}
            if siblings - {"opencatcore"}:
                pname = package["name"]
                problems.append(f"{pname} depends on siblings {sorted(siblings)}")
for problem in problems: print("architecture:", problem)
sys.exit(1 if problems else 0)
' || status=1
for symbol in "class ManualClock" "struct MockAppleCA"; do
    where=$(grep -rl "public final $symbol\|public $symbol" Packages/*/Sources | grep -v "/Sources/OpenCatTesting/" || true)
    if [ -n "$where" ]; then echo "architecture: $symbol defined outside OpenCatTesting: $where"; status=1; fi
done
python3 Tools/ci/check-function-length.py Packages Tools ConformanceTests || status=1
blocking=$(grep -rnE 'waitUntilExit|readDataToEndOfFile|readToEnd\(|\.availableData|Thread\.sleep|DispatchSemaphore|DispatchGroup|(^|[^.A-Za-z_])(usleep|nanosleep)\(' \
    --include='*.swift' --exclude-dir=.build --exclude-dir='.build-*' --exclude-dir='.build_*' \
    Packages ConformanceTests Tools Examples 2>/dev/null \
    | grep -v 'blocking-ok:' | grep -vE '^[^:]+:[0-9]+:\s*(///|//)' || true)
if [ -n "$blocking" ]; then echo "architecture: blocking waits (use swift-subprocess or async APIs):"; echo "$blocking"; status=1; fi
# Tests wait for an asynchronous effect through OpenCatTesting's waitUntil/waitFor only (docs/TESTING.md): a real
# Task.sleep in test code is a guess at how long something takes. A line marked `sleep-ok:` says why it is not a wait
# (a ceiling raced against the work, a stand-in that never answers).
sleeps=$(grep -rnE 'Task\.sleep\(|\.sleep\(for:|usleep|ContinuousClock\(\)\.sleep' --include='*.swift' \
    Packages/*/Tests Packages/OpenCatCore/Sources/OpenCatTesting Tools/Tests ConformanceTests Examples/*/Tests 2>/dev/null \
    | grep -v 'sleep-ok:' | grep -v '/OpenCatTesting/WaitUntil.swift:' | grep -vE 'clock\.sleep|Clock\.sleep' \
    | grep -vE '^[^:]+:[0-9]+:\s*(///|//)' || true)
if [ -n "$sleeps" ]; then echo "architecture: tests that sleep instead of waiting (use waitUntil, docs/TESTING.md):"; echo "$sleeps"; status=1; fi
shipped=$(grep -rlnE '^(@[A-Za-z]+ )*((public|package|internal) )?import (OpenCatTesting|MockStores|MockStoresServer)$' \
    Tools/server Tools/release 2>/dev/null || true)
if [ -n "$shipped" ]; then echo "architecture: test support in a server or release executable: $shipped"; status=1; fi
while [ $# -gt 0 ]; do
    case "$1" in
    --linked)
        # Each executable's link list (written by a debug build of the workspace) names the modules it links.
        declare -A forbidden_links=(
            [opencat]="PostgresNIO NIOSSL AsyncHTTPClient ZIPFoundation"
            [opencat-release]="PostgresNIO NIOSSL AsyncHTTPClient Hummingbird GRDB"
        )
        for product in "${!forbidden_links[@]}"; do
            list=".build/debug/$product.product/Objects.LinkFileList"
            if [ ! -f "$list" ]; then echo "architecture: $list is missing (build the workspace first)"; status=1; continue; fi
            for module in ${forbidden_links[$product]}; do
                if grep -q "/$module.build/" "$list"; then echo "architecture: $product links $module"; status=1; fi
            done
        done
        shift ;;
    --example-linked)
        # The adapter author's example, built and tested in a scratch path shared with the workspace (so every module
        # of the graph may be compiled there): what its test bundle links is what the link list of that bundle names.
        # Its production target is a library the bundle links, so the bundle's list covers it too.
        scratch="$2"; shift 2
        list="$scratch/debug/AdapterAuthorPackageTests.product/Objects.LinkFileList"
        if [ ! -f "$list" ]; then echo "architecture: $list is missing (swift test the example first)"; status=1; continue; fi
        for module in PostgresNIO NIOSSL AsyncHTTPClient ZIPFoundation GRDB; do
            if grep -q "/$module.build/" "$list"; then echo "architecture: the adapter author's package links $module"; status=1; fi
        done
        if ! grep -q "/StoreAdapters.build/" "$list" || ! grep -q "/ExampleStore.build/" "$list"; then
            echo "architecture: $list does not link the adapter author's ExampleStore and StoreAdapters"; status=1
        fi
        # The adapter itself (a dynamic library, so it has a link list of its own) links no mock store, no server
        # stack and no test support: the conformance suite is its tests' dependency alone.
        adapter="$scratch/debug/ExampleStore.product/Objects.LinkFileList"
        if [ ! -f "$adapter" ]; then echo "architecture: $adapter is missing (build the example first)"; status=1; continue; fi
        for module in MockStores MockStoresServer OpenCatConformance OpenCatTesting Hummingbird NIOCore; do
            if grep -q "/$module.build/" "$adapter"; then echo "architecture: the adapter author's ExampleStore links $module"; status=1; fi
        done
        echo "architecture: ExampleStore links $(sed 's|.*/\([^/]*\)\.build/.*|\1|' "$adapter" | sort -u | tr '\n' ' ')" ;;
    *) echo "architecture: unknown option $1"; exit 64 ;;
    esac
done
[ $status = 0 ] && echo "architecture: OK (kernel without GRDB, test support outside production, short function bodies, no blocking waits$([ -n "${list:-}" ] && echo ', a lean adapter package'))"
exit $status
