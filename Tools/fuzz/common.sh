# Shared by run.sh and smoke.sh (sourced from the repository root): the targets and the sanitizer build.
# shellcheck shell=bash
FUZZ_TARGETS="apple-jws apple-notification stripe paypal google steam cassette license starknet-rpc apple-receipt"
FUZZ_SCRATCH="$PWD/.build-fuzz"
FUZZ_BINARY="$FUZZ_SCRATCH/release/OpenCatFuzz"

# Builds Tools/fuzz with every module instrumented (its own scratch path), keeping only the compiler's diagnostics.
fuzz_build() {
  swift build --package-path Tools/fuzz --scratch-path "$FUZZ_SCRATCH" -c release -Xswiftc -sanitize=fuzzer,address 2>&1 \
    | { grep -vE '^\[[0-9]+/[0-9]+\]|^(Building|Compiling|Write|Fetching|Computing|Creating|Working copy)' || true; }
}
