#pragma once
// `--host`: the memory system of the CPU that holds a partially offloaded model's other layers,
// named the way it is sold: generation, transfer rate and channels ("ddr5-6000x2"), optionally
// with the memory installed ("ddr5-6000x2:96GB").

#include <string>
#include <string_view>

#include "engine/partial_offload.hpp"

namespace decodesim::cli {

// A desktop of the RTX 50 generation: two channels of DDR5-6000 (96 GB/s).
inline constexpr std::string_view kDefaultHost = "ddr5-6000x2";

// What a CPU streaming weights achieves of channels x MT/s x 8 B: the median of nine published
// read-bandwidth measurements of desktop and workstation DDR4 and DDR5 systems (63% to 98%;
// docs/model.md, "Partial offload").
inline constexpr double kHostMemoryEfficiency = 0.73;

// Throws core::UsageError naming --host and the expected form.
engine::HostMemory parse_host_memory(std::string_view spec);

}  // namespace decodesim::cli
