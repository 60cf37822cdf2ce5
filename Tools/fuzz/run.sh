#!/usr/bin/env bash
# Fuzzes one target: Tools/fuzz/run.sh TARGET SECONDS [libFuzzer flags…]
#   TARGET: apple-jws apple-notification stripe paypal google steam cassette license starknet-rpc apple-receipt
#   (or "all")
# Builds Tools/fuzz with -sanitize=fuzzer,address into .build-fuzz (its own scratch path: every module is
# instrumented), writes the target's seed corpus from Fixtures/ into .build-fuzz/corpus/TARGET on first use, then
# runs libFuzzer on it: -timeout=1 (an input taking over 1 s is a finding), -rss_limit_mb=2048, the target's
# dictionary, leak detection on. Crashes and slow inputs land in .build-fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
TARGET="${1:?usage: Tools/fuzz/run.sh TARGET SECONDS [libFuzzer flags]}"
SECONDS_TO_RUN="${2:?usage: Tools/fuzz/run.sh TARGET SECONDS [libFuzzer flags]}"
shift 2
source Tools/fuzz/common.sh
TARGETS="$FUZZ_TARGETS"
SCRATCH="$FUZZ_SCRATCH"
BIN="$FUZZ_BINARY"
if [ -z "${OPENCAT_FUZZ_SKIP_BUILD:-}" ] && ! fuzz_build; then echo "fuzz build failed" >&2; exit 1; fi
if [ "$TARGET" = all ]; then
  status=0
  for target in $TARGETS; do OPENCAT_FUZZ_SKIP_BUILD=1 "$0" "$target" "$SECONDS_TO_RUN" "$@" || status=1; done
  exit $status
fi
case " $TARGETS " in *" $TARGET "*) ;; *) echo "unknown target $TARGET (one of: $TARGETS)" >&2; exit 64 ;; esac

CORPUS="$SCRATCH/corpus/$TARGET"
ARTIFACTS="$SCRATCH/artifacts/$TARGET"
mkdir -p "$ARTIFACTS"
export OPENCAT_FUZZ_TARGET="$TARGET"
export OPENCAT_FUZZ_APPLE_ROOT="$SCRATCH/corpus/$TARGET.root.der"
# Seeds on first use (into a temporary folder, moved into place once complete); the App Store targets' corpus is
# only valid with the root written beside it, so a missing root means new seeds.
if [ -d "$CORPUS" ] && [[ "$TARGET" == apple-jws || "$TARGET" == apple-notification ]] \
  && [ ! -f "$OPENCAT_FUZZ_APPLE_ROOT" ]; then rm -rf "$CORPUS"; fi
if [ ! -d "$CORPUS" ]; then
  rm -rf "$CORPUS.seeding"
  OPENCAT_FUZZ_SEEDS="$CORPUS.seeding" OPENCAT_FUZZ_REPOSITORY="$ROOT" "$BIN"
  mv "$CORPUS.seeding" "$CORPUS"
fi
DICT="Tools/fuzz/dictionaries/$TARGET.dict"
[ -f "$DICT" ] || DICT="Tools/fuzz/dictionaries/json.dict"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$ROOT/Tools/fuzz/lsan.supp:print_suppressions=0"
echo "fuzz: $TARGET for ${SECONDS_TO_RUN}s, corpus $(ls "$CORPUS" | wc -l) files, dictionary $DICT"
exec "$BIN" "$CORPUS" -max_total_time="$SECONDS_TO_RUN" -timeout=1 -rss_limit_mb=2048 -dict="$DICT" \
  -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 "$@"
