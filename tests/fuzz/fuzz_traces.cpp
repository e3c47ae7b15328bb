// libFuzzer target: the request traces `serve --trace` replays (decodesim's CSV, Azure's and
// BurstGPT's CSVs, Mooncake's JSONL). A trace may be refused with an InputError; anything else (a
// crash, a row accepted with a non-finite arrival, a count below 1, a prefix longer than its
// prompt, more block ids than its prompt fills, more rows than the replay bound) is a finding.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/units.hpp"
#include "fuzz_checks.hpp"
#include "profiles/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // The reader takes a path: the input is written to a file of this process's own.
    const auto path = std::filesystem::temp_directory_path() / ("decodesim_fuzz_trace_" + std::to_string(::getpid()) + ".csv");
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    try {
        const auto trace = decodesim::profiles::load_trace(path.string());
        const auto& rows = trace.rows;
        if (rows.empty() || rows.size() > static_cast<std::size_t>(decodesim::core::kMaxRequests)) std::abort();
        for (const auto& row : rows) {
            decodesim::fuzz::require_finite(row.arrival_s);
            if (row.arrival_s < 0.0 || row.prompt_tokens < 1 || row.output_tokens < 1) std::abort();
            if (row.prefix_tokens < 0 || row.prefix_tokens > row.prompt_tokens) std::abort();
            if (!row.block_ids.empty() &&
                (row.block_tokens < 1 ||
                 static_cast<long long>(row.block_ids.size()) > (row.prompt_tokens + row.block_tokens - 1) / row.block_tokens)) {
                std::abort();
            }
        }
    } catch (const decodesim::core::InputError&) {
    }
    return 0;
}
