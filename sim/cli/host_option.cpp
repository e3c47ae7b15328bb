#include "cli/host_option.hpp"

#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"

namespace decodesim::cli {
namespace {

[[noreturn]] void refuse(std::string_view spec, std::string_view why) {
    throw core::UsageError(fmt::format("--host '{}': {}; expected GENERATION-MTPSxCHANNELS[:CAPACITY], e.g. "
                                       "ddr5-6000x2 or ddr4-3200x4:128GB (generations ddr4, ddr5)",
                                       spec, why));
}

// A positive whole number in the project's number grammar (core::parse_whole_number), all of `text`.
std::optional<std::int64_t> whole_number(std::string_view text) {
    std::int64_t value = 0;
    if (!core::parse_whole_number(text, value) || value <= 0) return std::nullopt;
    return value;
}

}  // namespace

engine::HostMemory parse_host_memory(std::string_view spec) {
    engine::HostMemory host;
    host.name = std::string(spec);
    std::string_view rest = spec;
    if (const std::size_t colon = rest.find(':'); colon != std::string_view::npos) {
        std::string_view capacity = rest.substr(colon + 1);
        rest = rest.substr(0, colon);
        double scale = 0.0;
        if (capacity.ends_with("GiB")) {
            scale = 1073741824.0;
            capacity.remove_suffix(3);
        } else if (capacity.ends_with("GB")) {
            scale = 1e9;
            capacity.remove_suffix(2);
        } else {
            refuse(spec, "the capacity needs its unit, GB or GiB");
        }
        const auto amount = whole_number(capacity);
        if (!amount || *amount > 1'000'000) refuse(spec, "the capacity is not a whole number from 1 to 1000000");
        host.capacity = core::Bytes(static_cast<double>(*amount) * scale);
    }
    const std::size_t dash = rest.find('-');
    const std::size_t times = rest.find('x');
    if (dash == std::string_view::npos || times == std::string_view::npos || times < dash) {
        refuse(spec, "no generation, transfer rate and channel count");
    }
    host.generation = std::string(rest.substr(0, dash));
    if (host.generation != "ddr4" && host.generation != "ddr5") refuse(spec, "unknown generation '" + host.generation + "'");
    const auto rate = whole_number(rest.substr(dash + 1, times - dash - 1));
    // JEDEC DDR4 runs 1600 to 3200 MT/s and DDR5 from 3200; overclocked kits reach about 8800.
    if (!rate || *rate < 800 || *rate > 12000) refuse(spec, "the transfer rate is not a whole number of MT/s from 800 to 12000");
    const auto channels = whole_number(rest.substr(times + 1));
    if (!channels || *channels > 24) refuse(spec, "the channel count is not a whole number from 1 to 24");
    host.megatransfers = static_cast<double>(*rate);
    host.channels = static_cast<int>(*channels);
    host.efficiency = kHostMemoryEfficiency;
    return host;
}

}  // namespace decodesim::cli
