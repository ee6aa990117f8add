#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for SECONDS from a seed
# corpus built from Fixtures/.
#
#   Tests/Fuzz/run-fuzzers.sh [--ci] [SECONDS] [TARGET...]
#
# Targets: include-paths uri-templates hal-documents engine (default: all).
# The library (Sources/Halley and its C shim, Sources/CHalleyCurl) is built once, as its own
# module, and each harness links against it; the build is reused while those sources are
# unchanged. Crashes are written to .build-fuzz/<target>/crashes; turn each into a regression
# test.
#
# --ci: the bounded run .ci/run makes. Each target starts from its seed corpus alone (not the
# corpus earlier runs grew) with a fixed random seed, so a run repeats the mutations of the one
# before it on the same sources, and prints one line of figures per target.
set -euo pipefail
cd "$(dirname "$0")/../.."
ci=false
if [[ "${1:-}" == "--ci" ]]; then
    ci=true
    shift
fi
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

# Checked before anything is built: a misspelled target fails at once.
for target in "${targets[@]}"; do harness "$target" >/dev/null; done

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
            find Fixtures -name '*.json' ! -path '*uritemplate-test*' | sort | head -200 | while read -r file; do
                cp "$file" "$corpus/seed-$(echo "$file" | tr '/' '_')"
            done
            ;;
    esac
}

# The library as SwiftPM builds it: Swift 6 mode, the package's name for `package` symbols,
# and the C target CHalleyCurl as a Clang module (a module map over its header, its one file
# compiled with coverage and AddressSanitizer instrumentation). Linked statically into every
# harness, with libdl for the shim's dlopen.
lib=$out/lib
cmodule=$out/CHalleyCurl
swift_flags=(-O -swift-version 6 -sanitize=fuzzer,address)
build_library() {
    mapfile -t library < <(find Sources/Halley -name '*.swift' | sort)
    local stamp
    stamp=$({
        printf '%s\n' "${swift_flags[*]}"
        swiftc --version 2>&1
        sha256sum "${library[@]}" Sources/CHalleyCurl/CHalleyCurl.c Sources/CHalleyCurl/include/CHalleyCurl.h
    } | sha256sum | cut -d' ' -f1)
    if [[ -f "$lib/libHalley.a" && "$(cat "$lib/stamp" 2>/dev/null)" == "$stamp" ]]; then
        echo "+ the library is built and its sources are unchanged"
        return
    fi
    rm -rf "$lib" "$cmodule"
    mkdir -p "$lib" "$cmodule"
    cat >"$cmodule/module.modulemap" <<EOF
module CHalleyCurl {
    header "$PWD/Sources/CHalleyCurl/include/CHalleyCurl.h"
    export *
}
EOF
    echo "+ building CHalleyCurl"
    clang -c -O1 -g -fsanitize=address,fuzzer-no-link -I Sources/CHalleyCurl/include \
        Sources/CHalleyCurl/CHalleyCurl.c -o "$cmodule/CHalleyCurl.o"
    echo "+ building Halley (${#library[@]} files)"
    swiftc "${swift_flags[@]}" -wmo -num-threads 2 -parse-as-library -package-name halley -module-name Halley \
        -I "$cmodule" -emit-module -emit-module-path "$lib/Halley.swiftmodule" -emit-library -static \
        "${library[@]}" -o "$lib/libHalley.a" 2>&1 | grep -v "Cannot export local symbol" || true
    if [ ! -f "$lib/libHalley.a" ]; then
        echo "error: building the library for the fuzzers failed" >&2
        exit 1
    fi
    echo "$stamp" >"$lib/stamp"
}

started=$SECONDS
build_library
echo "+ library ready after $((SECONDS - started)) s"

for target in "${targets[@]}"; do
    binary="$out/fuzz-$target"
    echo "+ building $target"
    rm -f "$binary"
    swiftc "${swift_flags[@]}" -parse-as-library -module-name FuzzTarget -I "$lib" -I "$cmodule" \
        "$(harness "$target")" -L "$lib" -lHalley "$cmodule/CHalleyCurl.o" -ldl -o "$binary" 2>&1 |
        grep -v "Cannot export local symbol" || true
    if [ ! -x "$binary" ]; then
        echo "error: building the $target fuzzer failed" >&2
        exit 1
    fi
    crashes="$out/$target/crashes"
    mkdir -p "$crashes"
    options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536
        -artifact_prefix="$crashes/" -print_final_stats=1)
    if [[ "$target" == engine ]]; then
        # The engine's tasks free their memory on other threads just after an input returns,
        # which libFuzzer's leak check after each input takes for a leak: it scans the heap
        # (~10 ms) for every input until it gives up after 1,000 of them, a tenth of the speed.
        # LeakSanitizer still checks the whole process when the run ends, and memory that
        # accumulates still hits -rss_limit_mb.
        options+=(-detect_leaks=0)
    fi
    if $ci; then
        corpus="$out/$target/ci-corpus"
        rm -rf "$corpus"
        seed "$target" "$corpus"
        log="$out/$target/ci.log"
        echo "+ running $target for ${seconds}s (seed corpus, -seed=1)"
        if ! "$binary" "$corpus" -seed=1 "${options[@]}" >"$log" 2>&1; then
            tail -n 40 "$log"
            echo "error: the $target fuzzer found a problem; the input is in $crashes/ (log: $log)" >&2
            exit 1
        fi
        figures=$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
            "$log" | sed 's/^stat:://; s/: */=/' | tr '\n' ' ')
        echo "  $target: no findings; $figures"
    else
        corpus="$out/$target/corpus"
        seed "$target" "$corpus"
        echo "+ running $target for ${seconds}s"
        "$binary" "$corpus" "${options[@]}" 2>&1 | tail -n 15
    fi
done
