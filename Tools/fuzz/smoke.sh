#!/usr/bin/env bash
# CI's fuzz smoke run: every target for SECONDS (default 12) on its seed corpus, after one (debug) build. Fails on any crash,
# sanitizer report, leak or input slower than 1 s; prints one line per target.
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET="${1:-12}"
# The debug configuration unless told otherwise: a smoke run is mostly its build, and a debug build takes half the
# time of a release one (docs/FUZZING.md).
export OPENCAT_FUZZ_CONFIGURATION="${OPENCAT_FUZZ_CONFIGURATION:-debug}"
source Tools/fuzz/common.sh
if ! fuzz_build; then echo "smoke: the fuzz build failed"; exit 1; fi
started=$(date +%s)
status=0
for target in $FUZZ_TARGETS; do
  log=".build-fuzz/smoke-$target.log"
  if OPENCAT_FUZZ_SKIP_BUILD=1 bash Tools/fuzz/run.sh "$target" "$SECONDS_PER_TARGET" >"$log" 2>&1; then
    runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "smoke: $target ok, ${runs:-?} inputs in ${SECONDS_PER_TARGET}s"
  else
    status=1
    echo "smoke: $target FAILED"
    grep -E 'ERROR|SUMMARY|Test unit written|ALARM|panic|Fatal' "$log" | head -20
  fi
done
echo "smoke: $(( $(date +%s) - started )) s for every target"
exit $status
