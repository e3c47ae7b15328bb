// libFuzzer target: the benchmark results `decodesim calibrate` reads (vllm bench serve JSON, SGLang
// bench_serving JSON lines, AIPerf and GenAI-Perf exports, llama-bench CSV, JSON and JSON lines).
// The first byte picks the file's extension; the rest is the file. A file may be refused with an
// InputError; anything else (a crash, a row accepted with a non-finite or non-positive value, a
// count that is not a whole number within the replay bounds) is a finding.

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "fuzz_checks.hpp"
#include "profiles/benchmark_results.hpp"
#include "profiles/measurement.hpp"

namespace {

void require_whole_within(const std::optional<double>& count, double most) {
    if (count && (!(*count >= 1.0) || *count > most || *count != std::floor(*count))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    constexpr const char* kExtensions[] = {".json", ".jsonl", ".csv"};
    const auto path = std::filesystem::temp_directory_path() /
                      ("decodesim_fuzz_benchmark_" + std::to_string(::getpid()) + kExtensions[data[0] % 3]);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data) + 1, static_cast<std::streamsize>(size - 1));
    try {
        const auto results = decodesim::profiles::load_benchmark_results({path.string()}, std::nullopt);
        for (const auto& row : results.rows) {
            decodesim::fuzz::require_finite(row.value);
            if (!(row.value > 0.0)) std::abort();
            if (row.closed_loop) {
                require_whole_within(row.batch, static_cast<double>(decodesim::profiles::kMaxReplayedClients));
                if (row.requests && (*row.requests < 1 || *row.requests > decodesim::profiles::kMaxReplayedRequests)) std::abort();
            }
        }
    } catch (const decodesim::core::InputError&) {
    }
    return 0;
}
