#pragma once
// The runtime profile as the engine sees it: plain data read by profiles/runtime_loader.hpp from
// runtime_profiles/*.yaml. The engine reads its fields and never a runtime's name.

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
using profiles::KernelGraph;
using profiles::KvCacheSizing;
using profiles::RuntimeFactors;
using profiles::RuntimeProfile;
using profiles::DeviceTier;
using profiles::SchedulerDefaults;
using profiles::SchedulerLimits;
using profiles::RequestPath;

// The runtime of a deployment assembled field by field rather than resolved (a cost model of the
// operators alone): the structural kernels, fused attention read once per layer, no block-format
// paths, the measured hardware defaults. resolve_deployment never leaves a deployment without one.
inline const RuntimeProfile& structural_runtime() {
    static const RuntimeProfile kStructural{};
    return kStructural;
}

}  // namespace decodesim::engine
