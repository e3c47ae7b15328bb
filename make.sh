#!/bin/sh
# The project's entry points. On a fresh Debian machine:
#   ./make.sh demo   installs what is missing, builds, and runs a real prediction
#   ./make.sh test   installs what is missing, builds, and runs the whole test suite
# `test` runs the suite in a normal build, again under ASan+UBSan in a clang build that also holds
# the fuzz targets, and each fuzz target briefly.
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
        # The benchmarks are built by `bench`; the suite does not run them.
        configure_and_build build -DDECODESIM_BUILD_BENCHMARKS=OFF
        ctest --test-dir build --output-on-failure -j "$jobs"
        # The explorer: the engine in WebAssembly, checked in headless Chromium against the CLI.
        sh scripts/build-web.sh
        sh tests/web/explorer_check.sh build-web/web ./build/decodesim
        python3 tests/web/planner_check.py build-web/web ./build/decodesim
        # One clang build under ASan and UBSan for both the suite and the libFuzzer targets, at -O1
        # (the sanitizers' own advice: as fast to run as -O3 under them, quicker to build).
        configure_and_build build-checked -DCMAKE_CXX_COMPILER=clang++-14 -DDECODESIM_FUZZ=ON \
            -DDECODESIM_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"
        ctest --test-dir build-checked --output-on-failure -j "$jobs"
        sh scripts/run-fuzzers.sh build-checked 5
        ;;
    build)
        sh scripts/install-deps.sh
        configure_and_build build
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
