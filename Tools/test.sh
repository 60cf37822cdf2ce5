#!/usr/bin/env bash
# The README's test command: provisions what the tests need when it is missing, then runs every test.
#   1. System packages (Debian/Ubuntu): libsqlite3-dev, libssl-dev, postgresql, chromium, libxml2-utils — installed
#      with apt-get when missing (as root, or through sudo).
#   2. PostgreSQL on 127.0.0.1 (Tools/ci/start-postgres.sh, as an unprivileged user), its URL exported as
#      OPENCAT_TEST_POSTGRES_URL — unless that is already set.
#   3. `swift test "$@"`: every package's tests and the conformance suite.
# Usage: bash Tools/test.sh [swift test arguments]   (e.g. --filter Ledger, or -Xswiftc -warnings-as-errors)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsqlite3-dev libssl-dev postgresql chromium libxml2-utils)
if command -v dpkg >/dev/null 2>&1; then
    need=()
    for pkg in "${packages[@]}"; do [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || need+=("$pkg"); done
    if [ ${#need[@]} -gt 0 ]; then
        echo "test: installing ${need[*]}"
        if [ "$(id -u)" = 0 ]; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
        elif command -v sudo >/dev/null 2>&1; then
            sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
        else
            echo "test: missing ${need[*]}: install them (apt-get install ${need[*]}) or run this as root" >&2
            exit 1
        fi
    fi
else
    echo "test: no dpkg here: install PostgreSQL, Chromium and xmllint yourself (${packages[*]} on Debian)" >&2
fi

if [ -z "${OPENCAT_TEST_POSTGRES_URL:-}" ]; then
    echo "test: starting PostgreSQL on 127.0.0.1"
    if ! OPENCAT_TEST_POSTGRES_URL=$(bash Tools/ci/start-postgres.sh); then
        echo "test: PostgreSQL did not start (see Tools/ci/start-postgres.sh)" >&2
        exit 1
    fi
    export OPENCAT_TEST_POSTGRES_URL
fi

echo "test: swift test $*"
exec swift test "$@"
