# Shared by run.sh and smoke.sh (sourced from the repository root): the targets and the sanitizer build.
# shellcheck shell=bash
FUZZ_TARGETS="apple-jws apple-notification stripe paypal google steam cassette license starknet-rpc apple-receipt"
FUZZ_SCRATCH="$PWD/.build-fuzz"
# release (default: the most inputs a second, for long runs) or debug (CI's smoke run: half the build time, the same
# instrumentation and sanitizers, fewer inputs a second).
FUZZ_CONFIGURATION="${OPENCAT_FUZZ_CONFIGURATION:-release}"
case "$FUZZ_CONFIGURATION" in release | debug) ;; *) echo "OPENCAT_FUZZ_CONFIGURATION: release or debug" >&2; exit 64 ;; esac
FUZZ_BINARY="$FUZZ_SCRATCH/$FUZZ_CONFIGURATION/OpenCatFuzz"

# Builds Tools/fuzz with every module instrumented (its own scratch path), keeping only the compiler's diagnostics.
fuzz_build() {
  swift build --package-path Tools/fuzz --scratch-path "$FUZZ_SCRATCH" -c "$FUZZ_CONFIGURATION" \
    -Xswiftc -sanitize=fuzzer,address 2>&1 \
    | { grep -vE '^\[[0-9]+/[0-9]+\]|^(Building|Compiling|Write|Fetching|Computing|Creating|Working copy)' || true; }
}
