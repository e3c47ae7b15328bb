#pragma once
// The runtime profile as the engine sees it: plain data read by profiles/runtime_loader.hpp from
// runtime_profiles/*.yaml. The engine reads its fields and never a runtime's name.

#include <functional>
#include <memory>

#include "profiles/hardware_profile.hpp"
#include "profiles/runtime_profile.hpp"

namespace decodesim::engine {

using profiles::AttentionKernels;
using profiles::BandRatios;
using profiles::kBandCentralShare;
using profiles::kBandMinimumRows;
using profiles::PassKind;
using profiles::pass_kind_name;
using profiles::ResidualBand;
using profiles::ShippedBand;
using profiles::BlockFormatMatmul;
using profiles::EagerPasses;
using profiles::KernelGraph;
using profiles::KvCacheSizing;
using profiles::RuntimeFactors;
using profiles::RuntimeProfile;
using profiles::DeviceTier;
using profiles::SchedulerDefaults;
using profiles::CacheSizedSequences;
using profiles::SchedulerLimits;
using profiles::RequestPath;
using profiles::CapturedGraphs;

// The runtime of a deployment assembled field by field rather than resolved (a cost model of the
// operators alone): the structural kernels, fused attention read once per layer, no block-format
// paths, the measured hardware defaults. resolve_deployment never leaves a deployment without one.
inline const RuntimeProfile& structural_runtime() {
    static const RuntimeProfile kStructural{};
    return kStructural;
}

// The runtime a device runs, for commands over several devices: one named for all, or each
// device's default (cli::runtime_chooser).
using RuntimeChooser = std::function<std::shared_ptr<const RuntimeProfile>(const profiles::HardwareProfile&)>;

}  // namespace decodesim::engine
