#!/bin/sh
# Runs every libFuzzer target for SECONDS over its seed corpus (the fixtures and shipped profiles),
# keeping what it learns in BUILD/corpus/<target>. A crash exits non-zero and leaves the input in
# BUILD/crashes/. Usage: run-fuzzers.sh BUILD_FOLDER SECONDS [TARGET]
set -eu
build=$1
seconds=$2
only=${3:-}
cd "$(dirname "$0")/.."
mkdir -p "$build/crashes"

run() {  # target, seed folders...
    target=$1
    shift
    [ -z "$only" ] || [ "$only" = "$target" ] || return 0
    mkdir -p "$build/corpus/$target"
    echo "fuzz: $target for ${seconds}s"
    "$build/tests/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$build/crashes/$target-" "$build/corpus/$target" "$@" 2>"$build/$target.log" || {
        tail -n 40 "$build/$target.log" >&2
        echo "fuzz: $target FAILED (input in $build/crashes/)" >&2
        exit 1
    }
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/$target.log" | sed "s/^/fuzz: $target /"
}

# Two queues side by side, one a core (each target is one process): a fuzzer's seconds are wall
# time, so on two cores the nine targets take half as long and each still gets its seconds.
(
    run fuzz_profile_reader hardware_profiles model_profiles tests/data/invalid
    run fuzz_units tests/fuzz/seeds/units
    run fuzz_command_line tests/fuzz/seeds/command_line
    run fuzz_user_files tests/fuzz/seeds/user_files
    run fuzz_benchmark_results tests/fuzz/seeds/benchmark_results
) &
first=$!
(
    run fuzz_hf_config tests/data/hf_configs tests/data/invalid
    run fuzz_ranges tests/fuzz/seeds/ranges
    run fuzz_checkpoint_headers tests/fuzz/seeds/checkpoints
    run fuzz_traces tests/fuzz/seeds/traces
) &
second=$!
status=0
wait "$first" || status=1
wait "$second" || status=1
[ "$status" -eq 0 ] || exit 1
echo "fuzz: all targets ran clean"
