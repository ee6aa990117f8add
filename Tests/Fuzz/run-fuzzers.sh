#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for SECONDS from a seed
# corpus built from Fixtures/.
#
#   Tests/Fuzz/run-fuzzers.sh [--ci] [SECONDS] [TARGET...]
#
# Targets: include-paths uri-templates hal-documents engine (default: all).
# The library's modules (Sources/HalleyHAL, HalleyTransport, Halley and the C shim,
# Sources/CHalleyCurl) are built once each, and each harness links those it imports; a build
# is reused while its sources are unchanged. Crashes are written to .build-fuzz/<target>/crashes; turn each into a regression
# test.
#
# --ci: the bounded run .ci/run makes. Each target starts from its seed corpus alone (not the
# corpus earlier runs grew) with a fixed random seed, the targets run side by side for SECONDS,
# and each prints one line of figures. Built with -Onone (HALLEY_FUZZ_OPTIMIZATION=-O for an
# optimised build).
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
# compiled with coverage and AddressSanitizer instrumentation). Each of the three modules is
# built as a static library of its own, and rebuilt only when its sources (or a module under
# it) change; a harness links the modules it imports: the parser harnesses HalleyHAL alone,
# the engine all three, with libdl for the shim's dlopen.
lib=$out/lib
cmodule=$out/CHalleyCurl
# Optimised for a long run; the --ci smoke run builds without optimisation (about 50 s for the
# four targets against 250 s, and still thousands of inputs a second), unless
# HALLEY_FUZZ_OPTIMIZATION says otherwise.
if $ci; then default_optimization=-Onone; else default_optimization=-O; fi
swift_flags=("${HALLEY_FUZZ_OPTIMIZATION:-$default_optimization}" -swift-version 6 -sanitize=fuzzer,address)
build_c_shim() {
    local stamp
    stamp=$(sha256sum Sources/CHalleyCurl/CHalleyCurl.c Sources/CHalleyCurl/include/CHalleyCurl.h | sha256sum)
    if [[ -f "$cmodule/CHalleyCurl.o" && "$(cat "$cmodule/stamp" 2>/dev/null)" == "$stamp" ]]; then return; fi
    rm -rf "$cmodule"
    mkdir -p "$cmodule"
    cat >"$cmodule/module.modulemap" <<EOF
module CHalleyCurl {
    header "$PWD/Sources/CHalleyCurl/include/CHalleyCurl.h"
    export *
}
EOF
    echo "+ building CHalleyCurl"
    clang -c -O1 -g -fsanitize=address,fuzzer-no-link -I Sources/CHalleyCurl/include \
        Sources/CHalleyCurl/CHalleyCurl.c -o "$cmodule/CHalleyCurl.o"
    echo "$stamp" >"$cmodule/stamp"
}

# build_module NAME [MODULE UNDER IT...]: Sources/NAME as $lib/libNAME.a and its module.
build_module() {
    local name=$1
    shift
    local sources stamp
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
    stamp=$({
        printf '%s\n' "${swift_flags[*]}"
        swiftc --version 2>&1
        sha256sum "${sources[@]}"
        for under in "$@"; do cat "$lib/$under.stamp"; done
    } | sha256sum | cut -d' ' -f1)
    if [[ -f "$lib/lib$name.a" && "$(cat "$lib/$name.stamp" 2>/dev/null)" == "$stamp" ]]; then
        echo "+ $name is built and its sources are unchanged"
        return
    fi
    mkdir -p "$lib"
    rm -f "$lib/lib$name.a" "$lib/$name.stamp"
    echo "+ building $name (${#sources[@]} files)"
    swiftc "${swift_flags[@]}" -wmo -num-threads 2 -parse-as-library -package-name halley -module-name "$name" \
        -I "$cmodule" -I "$lib" -emit-module -emit-module-path "$lib/$name.swiftmodule" -emit-library -static \
        "${sources[@]}" -o "$lib/lib$name.a" 2>&1 | grep -v "Cannot export local symbol" || true
    if [ ! -f "$lib/lib$name.a" ]; then
        echo "error: building $name for the fuzzers failed" >&2
        exit 1
    fi
    echo "$stamp" >"$lib/$name.stamp"
}

# The modules a target links, lowest first.
modules() {
    case "$1" in
        engine) echo HalleyHAL HalleyTransport Halley ;;
        *) echo HalleyHAL ;;
    esac
}

started=$SECONDS
build_c_shim
needed=" "
for target in "${targets[@]}"; do needed+="$(modules "$target") "; done
[[ "$needed" == *" HalleyHAL "* ]] && build_module HalleyHAL
[[ "$needed" == *" HalleyTransport "* ]] && build_module HalleyTransport HalleyHAL
[[ "$needed" == *" Halley "* ]] && build_module Halley HalleyHAL HalleyTransport
echo "+ library ready after $((SECONDS - started)) s"

# Builds the harness of `target` as $out/fuzz-<target>.
build_target() {
    local target=$1 binary="$out/fuzz-$1"
    echo "+ building $target"
    rm -f "$binary"
    swiftc "${swift_flags[@]}" -parse-as-library -module-name FuzzTarget -I "$lib" -I "$cmodule" \
        "$(harness "$target")" -L "$lib" $(modules "$target" | tr ' ' '\n' | tac | sed 's/^/-l/') \
        "$cmodule/CHalleyCurl.o" -ldl -o "$binary" 2>&1 |
        grep -v "Cannot export local symbol" || true
    if [ ! -x "$binary" ]; then
        echo "error: building the $target fuzzer failed" >&2
        exit 1
    fi
}

# libFuzzer's options for `target`.
options_of() {
    local target=$1
    local crashes="$out/$target/crashes"
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
}

for target in "${targets[@]}"; do build_target "$target"; done

if $ci; then
    # The targets run side by side, each for SECONDS of wall time on the machine's cores (the
    # figures say how many inputs each ran): the step takes SECONDS, not SECONDS per target.
    pids=()
    for target in "${targets[@]}"; do
        options_of "$target"
        corpus="$out/$target/ci-corpus"
        rm -rf "$corpus"
        seed "$target" "$corpus"
        echo "+ running $target for ${seconds}s (seed corpus, -seed=1)"
        "$out/fuzz-$target" "$corpus" -seed=1 "${options[@]}" >"$out/$target/ci.log" 2>&1 &
        pids+=($!)
    done
    failed=0
    for index in "${!targets[@]}"; do
        target=${targets[$index]}
        log="$out/$target/ci.log"
        if ! wait "${pids[$index]}"; then
            tail -n 40 "$log"
            echo "error: the $target fuzzer found a problem; the input is in $out/$target/crashes/ (log: $log)" >&2
            failed=1
            continue
        fi
        figures=$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
            "$log" | sed 's/^stat:://; s/: */=/' | tr '\n' ' ')
        echo "  $target: no findings; $figures"
    done
    exit $failed
fi

for target in "${targets[@]}"; do
    options_of "$target"
    corpus="$out/$target/corpus"
    seed "$target" "$corpus"
    echo "+ running $target for ${seconds}s"
    "$out/fuzz-$target" "$corpus" "${options[@]}" 2>&1 | tail -n 15
done
