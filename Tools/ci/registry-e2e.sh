#!/usr/bin/env bash
# The registry end to end (docs/RELEASING.md, "Proved end to end"): OpenCatCore, StoreAdapters, MockStores and
# OpenCatConformance published signed to a loopback registry, then resolved by identity, built and tested by a
# stranger's package in a scratch folder with caches of its own (a cold build of its whole graph: minutes, so CI runs
# it as a gate on both cores, not in the pinned test run). Swift test arguments pass through (CI passes its flags, so
# the workspace's test build is reused as it is).
# Usage: bash Tools/ci/registry-e2e.sh [swift test arguments]
set -euo pipefail
cd "$(dirname "$0")/../.."
export OPENCAT_REGISTRY_E2E=1
swift test "$@" --filter RegistryEndToEndTests
