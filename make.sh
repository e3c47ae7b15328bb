#!/bin/sh
# The project's entry points. On a fresh Debian machine:
#   ./make.sh demo   installs what is missing, builds, and runs a real prediction
#   ./make.sh test   installs what is missing, builds, and runs the whole test suite
# `test` runs the doc examples, the Python package, the browser pages and the fit checks in a
# normal build, the unit suite under ASan+UBSan in a clang build that also holds the fuzz
# targets, and each fuzz target briefly.
# Also: ./make.sh build | sanitize | fuzz [SECONDS] | bench
set -eu
cd "$(dirname "$0")"
jobs=$(nproc 2>/dev/null || echo 2)

# Ninja for a new build folder: it compiles any target's sources as soon as their inputs exist,
# where Make finishes one library before starting the next and leaves a core idle at each
# single-file target (docs/performance.md). A folder configured before keeps its generator.
generator() {  # $1: build folder
    if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then echo "-GNinja"; fi
}

configure_and_build() {  # $1: build folder, rest: extra CMake arguments
    folder=$1
    shift
    cmake -S . -B "$folder" $(generator "$folder") -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
    cmake --build "$folder" -j "$jobs"
}

command=${1:-demo}
case "$command" in
    demo)
        sh scripts/install-deps.sh
        # Only the binary the demo runs; the tests and benchmarks are built by `test` and `bench`.
        cmake -S . -B build $(generator build) -DCMAKE_BUILD_TYPE=Release >/dev/null
        cmake --build build -j "$jobs" --target decodesim
        ./build/decodesim predict --hardware h100-sxm --model llama-3.1-8b
        ;;
    test)
        sh scripts/install-deps.sh test
        # The optimized build runs what needs its speed: the doc examples, the Python package, the
        # rendered pages and the checks on the shipped fit's figures (DECODESIM_UNIT_TESTS=OFF);
        # the unit suite runs once, under the sanitizers below. The benchmarks are built by `bench`.
        configure_and_build build -DDECODESIM_BUILD_BENCHMARKS=OFF -DDECODESIM_UNIT_TESTS=OFF
        # Those checks run beside the explorer's build (the engine in WebAssembly, at -O1 for the
        # check: scripts/build-web.sh), which fills the core their longest tests leave idle; their
        # output follows once both are done.
        ctest --test-dir build --output-on-failure -j "$jobs" >build/release-suite.log 2>&1 &
        suite=$!
        web=0
        DECODESIM_WEB_OPTIMIZE=-O1 sh scripts/build-web.sh || web=$?
        suite_status=0
        wait "$suite" || suite_status=$?
        cat build/release-suite.log
        [ "$suite_status" -eq 0 ] || exit "$suite_status"
        [ "$web" -eq 0 ] || exit "$web"
        # The explorer and the planner page, checked in headless Chromium against the CLI.
        sh tests/web/explorer_check.sh build-web/web ./build/decodesim
        python3 tests/web/planner_check.py build-web/web ./build/decodesim
        # One clang build under ASan and UBSan for both the unit suite and the libFuzzer targets,
        # at -O1 (the sanitizers' own advice: as fast to run as -O3 under them, quicker to build).
        configure_and_build build-checked -DCMAKE_CXX_COMPILER=clang++-14 -DDECODESIM_FUZZ=ON \
            -DDECODESIM_BUILD_BENCHMARKS=OFF -DDECODESIM_UNIT_TESTS=ON -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"
        ctest --test-dir build-checked --output-on-failure -j "$jobs"
        sh scripts/run-fuzzers.sh build-checked 5
        ;;
    build)
        sh scripts/install-deps.sh
        # Everything, the unit suite included (`test` builds only the fit checks here).
        configure_and_build build -DDECODESIM_UNIT_TESTS=ON
        ;;
    sanitize)
        sh scripts/install-deps.sh test
        configure_and_build build-sanitize -DDECODESIM_SANITIZE=ON -DDECODESIM_BUILD_BENCHMARKS=OFF
        ctest --test-dir build-sanitize --output-on-failure -j "$jobs"
        ;;
    fuzz)
        sh scripts/install-deps.sh test
        configure_and_build build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DDECODESIM_FUZZ=ON \
            -DDECODESIM_BUILD_TESTS=OFF -DDECODESIM_BUILD_BENCHMARKS=OFF
        sh scripts/run-fuzzers.sh build-fuzz "${2:-60}" "${3:-}"
        ;;
    bench)
        sh scripts/install-deps.sh
        configure_and_build build -DDECODESIM_BUILD_BENCHMARKS=ON
        ./build/bench/decodesim_bench
        ;;
    *)
        echo "usage: ./make.sh demo|test|build|sanitize|fuzz [SECONDS [TARGET]]|bench" >&2
        exit 2
        ;;
esac
