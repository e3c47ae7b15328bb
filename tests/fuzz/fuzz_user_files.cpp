// libFuzzer target: the files a user hands to `decodesim calibrate` (llama-bench CSV/JSON/JSONL,
// vllm bench serve JSON, a measurements table), the runtime profiles `--runtime path.yaml` reads
// and the load curves of `plan --load-curve`. The first byte picks the reader; the rest is the file. A file may be refused with an
// InputError; anything else (a crash, a non-finite or non-positive value accepted) is a finding.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <memory>

#include "profiles/runtime_loader.hpp"
#include "core/error.hpp"
#include "fuzz_checks.hpp"
#include "profiles/benchmark_results.hpp"
#include "profiles/load_curve_reader.hpp"

namespace {

// The readers take paths (a folder of results, the file's extension), so the input is written to
// a file of this process's own.
std::string write_input(const std::string& extension, const char* data, std::size_t size) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("decodesim_fuzz_user_file_" + std::to_string(::getpid()) + extension);
    std::ofstream(path, std::ios::binary).write(data, static_cast<std::streamsize>(size));
    return path.string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const char* text = reinterpret_cast<const char*>(data) + 1;
    const std::size_t length = size - 1;
    try {
        if (data[0] % 2 == 0) {
            const auto results = decodesim::profiles::load_benchmark_results(
                {write_input(data[0] % 4 == 0 ? ".csv" : ".json", text, length)}, std::nullopt);
            for (const auto& row : results.rows) {
                decodesim::fuzz::require_finite(row.value);
                if (!(row.value > 0.0)) std::abort();
            }
        } else if (data[0] % 4 == 3) {
            // A day's steps: hours in order within [0, 24), rates finite and at least 0.
            const auto curve = decodesim::profiles::load_load_curve(write_input(".csv", text, length));
            double previous = -1.0;
            for (const auto& step : curve) {
                decodesim::fuzz::require_finite(step.rate_per_s);
                if (!(step.start_hour > previous && step.start_hour < 24.0 && step.rate_per_s >= 0.0)) std::abort();
                previous = step.start_hour;
            }
        } else {
            // Any base resolves to the measured defaults: the file's own keys are what is fuzzed.
            const decodesim::profiles::RuntimeBaseLookup base = [](const std::string&) {
                return std::make_shared<const decodesim::profiles::RuntimeProfile>();
            };
            const auto preset = decodesim::profiles::load_runtime_profile(write_input(".yaml", text, length), base);
            for (const auto& factors : preset.by_family) {
                decodesim::fuzz::require_finite(factors.kernel_overhead);
                decodesim::fuzz::require_finite(factors.sequence_overhead);
                decodesim::fuzz::require_finite(factors.compute);
                for (double multiplier : factors.backend_compute) decodesim::fuzz::require_finite(multiplier);
                for (double multiplier : factors.backend_attention) decodesim::fuzz::require_finite(multiplier);
            }
        }
    } catch (const decodesim::core::InputError&) {
    } catch (const decodesim::core::UsageError&) {
    }
    return 0;
}
