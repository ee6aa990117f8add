#!/usr/bin/env bash
# The full reliability run (issue #19): the suites every `swift test` runs short, at full
# size (HALLEY_RELIABILITY=full), in a release build, with nothing else running beside them,
# so the process-wide figures (resident size, descriptors, threads) are asserted too.
#
#     Tests/Soak/run.sh [LOG]
#
# Writes the whole output to LOG (.build-soak/reliability.log by default) and the figure
# lines to .build-soak/figures.txt; fails when a test fails or the output shows a misused
# continuation. All traffic stays on loopback; the chaos server exits on its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=.build-soak
log="${1:-$scratch/reliability.log}"
mkdir -p "$scratch"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "machine: $(uname -srm), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    swift --version 2>&1 | head -1
    echo "python: $(python3 --version 2>&1)"
} | tee "$scratch/machine.txt"

# @testable imports need testability in a release build.
swift build -c release --build-tests --scratch-path "$scratch" -Xswiftc -enable-testing

status=0
HALLEY_RELIABILITY=full swift test -c release --skip-build --scratch-path "$scratch" -Xswiftc -enable-testing \
    --filter 'Reliability' 2>&1 | tee "$log" || status=$?

grep -E '^RELIABILITY' "$log" > "$scratch/figures.txt" || true
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$scratch/machine.txt"
# A continuation resumed twice traps; one never resumed is reported when it is destroyed.
if grep -E 'CONTINUATION MISUSE|leaked its continuation' "$log"; then
    echo "continuation misuse: see $log" >&2
    exit 1
fi
echo "figures: $scratch/figures.txt"
exit "$status"
