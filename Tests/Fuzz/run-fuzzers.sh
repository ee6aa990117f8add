#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for SECONDS from a seed
# corpus built from Fixtures/. Usage: Tests/Fuzz/run-fuzzers.sh [SECONDS] [TARGET...]
# Targets: include-paths uri-templates hal-documents engine (default: all).
# Crashes are written to .build-fuzz/<target>/crashes; turn each into a regression test.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(include-paths uri-templates hal-documents engine)

out=.build-fuzz
mkdir -p "$out"

harness() {
    case "$1" in
        include-paths) echo Tests/Fuzz/Targets/FuzzIncludePaths.swift ;;
        uri-templates) echo Tests/Fuzz/Targets/FuzzURITemplates.swift ;;
        hal-documents) echo Tests/Fuzz/Targets/FuzzHALDocuments.swift ;;
        engine) echo Tests/Fuzz/Targets/FuzzEngine.swift ;;
        *) echo "unknown target $1" >&2; exit 2 ;;
    esac
}

seed() {
    local target=$1 corpus=$2
    mkdir -p "$corpus"
    case "$target" in
        include-paths)
            printf '%s\n' '[contacts].website' 'ex:owner.[ex:contacts]' '["http://x.org/rels/a"].b' 'ea:admin@primary' \
                '[contacts' 'a..b' '' '[]' '"a \"b\""' > "$corpus/seed-paths"
            ;;
        uri-templates)
            python3 - "$corpus" <<'PY'
import json, sys, os, glob
out = sys.argv[1]
n = 0
for path in glob.glob("Fixtures/uritemplate-test/*.json"):
    for group in json.load(open(path)).values():
        for case in group["testcases"]:
            with open(os.path.join(out, f"seed-{n}"), "w") as f: f.write(case[0])
            n += 1
PY
            ;;
        hal-documents|engine)
            find Fixtures -name '*.json' ! -path '*uritemplate-test*' | head -200 | while read -r file; do
                cp "$file" "$corpus/seed-$(echo "$file" | tr '/' '_')"
            done
            ;;
    esac
}

for target in "${targets[@]}"; do
    binary="$out/fuzz-$target"
    echo "+ building $target"
    # Listed per build: sources may have been added since the script started.
    mapfile -t library < <(find Sources/Halley -name '*.swift' | sort)
    rm -f "$binary"
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name Halley \
        "${library[@]}" "$(harness "$target")" -o "$binary" 2>&1 | grep -v "Cannot export local symbol" || true
    if [ ! -x "$binary" ]; then
        echo "error: building the $target fuzzer failed" >&2
        exit 1
    fi
    corpus="$out/$target/corpus"
    crashes="$out/$target/crashes"
    mkdir -p "$crashes"
    seed "$target" "$corpus"
    echo "+ running $target for ${seconds}s"
    "$binary" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$crashes/" -print_final_stats=1 2>&1 | tail -n 15
done
