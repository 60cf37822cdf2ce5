#!/usr/bin/env bash
# The README's test command: provisions what the tests need when it is missing, then runs every test.
#   1. System packages (Debian/Ubuntu): libsqlite3-dev, libssl-dev, postgresql, chromium, libxml2-utils — installed
#      with apt-get when missing (as root, or through sudo).
#   2. PostgreSQL on 127.0.0.1 (Tools/ci/start-postgres.sh, as an unprivileged user), its URL exported as
#      OPENCAT_TEST_POSTGRES_URL — unless that is already set.
#   3. The tests' temporary files on a RAM disk (/dev/shm) when TMPDIR is not set (docs/TESTING.md).
#   4. `swift test "$@"`: every package's tests and the conformance suite (the PyPI packages cryptography and
#      standardwebhooks are pip-installed first when missing: tests check Apple offer signatures and webhook
#      signatures with them).
#   5. The browser tests (Tools/ci/browser/README.md): the server's /portal and /console in Chromium (Playwright and
#      axe-playwright-python, pip-installed when missing), on SQLite then PostgreSQL, then the server README's demo
#      run as written (run.py --demo); screenshots and logs in
#      .build/browser-artifacts (or $OPENCAT_BROWSER_ARTIFACTS). OPENCAT_BROWSER_TESTS=0 skips them.
#   Any failure makes the script fail; every step runs.
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

# The tests' files (SQLite ledgers, encrypted caches, cassettes they write) on a RAM disk when the machine has one and
# TMPDIR is not set: a commit's sync to disk then costs nothing. On a slow or shared disk, hundreds of tests committing
# at once made syncs take seconds, and SQLite work that waits for one on a thread of Swift concurrency stalled every
# task in the test process for 30 s and more (docs/TESTING.md).
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    TMPDIR=$(mktemp -d /dev/shm/opencat-tests.XXXXXX)
    export TMPDIR
    trap 'rm -rf "$TMPDIR"' EXIT
fi

# The PyPI packages the tests use: cryptography and standardwebhooks (independent checks of Apple offer signatures and
# of webhook signatures, during swift test),
# Playwright and axe-playwright-python (the browser tests, after it).
if ! python3 -c 'import cryptography, standardwebhooks, playwright, axe_playwright_python' 2>/dev/null; then
    echo "test: installing cryptography, standardwebhooks, playwright and axe-playwright-python (pip)"
    python3 -m pip install --quiet cryptography standardwebhooks playwright axe-playwright-python 2>/dev/null \
        || python3 -m pip install --quiet --user --break-system-packages cryptography standardwebhooks playwright \
            axe-playwright-python \
        || echo "test: pip could not install cryptography, standardwebhooks, playwright and axe-playwright-python" >&2
fi

# Swift Testing starts every test at once unless told otherwise. On one core (CI pins this command with taskset -c 0)
# nearly a thousand tests then share one cooperative thread, and a short test can wait minutes for its turn: a run on
# a fresh clone at 397a13c failed two tests that way (a back-off waited for past its 120 s ceiling, a URL request
# timed out) after 344 s. Eight at a time, the same tests ran pinned in 253 s with none starved. A value already in
# the environment wins.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"

status=0
echo "test: swift test $* (at most $SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH tests at a time)"
swift test "$@" || status=1

if [ "${OPENCAT_BROWSER_TESTS:-1}" = 0 ]; then
    echo "test: browser tests skipped (OPENCAT_BROWSER_TESTS=0)"
    exit "$status"
fi
echo "test: browser tests (Tools/ci/browser)"
# The build flags of the test run (so the executables reuse its compiled modules instead of rebuilding them).
build=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
        -Xswiftc | -Xcc | -Xlinker | --explicit-target-dependency-import-check | -c | --configuration | --scratch-path | -j | --jobs)
            build+=("${args[i]}" "${args[i + 1]:-}"); i=$((i + 1)) ;;
    esac
done
if swift build "${build[@]}" --product opencat-server && swift build "${build[@]}" --product opencat; then
    bin=$(swift build "${build[@]}" --show-bin-path)
    artifacts="${OPENCAT_BROWSER_ARTIFACTS:-.build/browser-artifacts}"
    for database in sqlite postgres; do
        python3 Tools/ci/browser/run.py --bin "$bin" --database "$database" --artifacts "$artifacts" || status=1
    done
    # The server README's demo, its commands run as written (Tools/server/README.md, "Try it in five minutes").
    python3 Tools/ci/browser/run.py --bin "$bin" --demo --artifacts "$artifacts" || status=1
else
    echo "browser: 0 passed, 1 failed (swift build --product opencat-server --product opencat)"
    status=1
fi
exit "$status"
