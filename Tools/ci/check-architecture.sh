#!/usr/bin/env bash
# Checks what the architecture promises and a build would not catch (docs/DECISIONS.md D26):
# - the kernel (OpenCatCore) and every sibling's production target link no GRDB, no NIO, no Hummingbird;
# - no production target depends on OpenCatTesting, and ManualClock / MockAppleCA are defined only there;
# - production packages depend on no sibling but OpenCatCore;
# - no source file in Packages/*/Sources is longer than 300 lines.
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
              "ChippiPayClient", "LLMKeyResolver"}
# What each production target may link, besides its own package: the kernel links no storage and no server stack.
forbidden = {"OpenCatCore": {"GRDB", "NIOCore", "AsyncHTTPClient", "Hummingbird"},
             "StoreAdapters": {"GRDB", "NIOCore", "AsyncHTTPClient", "Hummingbird", "OpenCat", "OpenCatTesting"}}
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
long=$(find Packages/*/Sources -name '*.swift' -exec wc -l {} + | awk '$2 != "total" && $1 > 300 {print $2 " (" $1 " lines)"}')
if [ -n "$long" ]; then echo "architecture: files over 300 lines:"; echo "$long"; status=1; fi
[ $status = 0 ] && echo "architecture: OK (kernel without GRDB, test support outside production, files within 300 lines)"
exit $status
