#pragma once
// Disaggregated prefill and decode (xPyD): x instances that only prefill and y instances that only
// decode, each a whole copy of the deployment, with every prompt's KV cache sent from the one to
// the other over the network between nodes (docs/serving.md, "Disaggregated prefill and decode").
// Here: the pool shape and the KV transfer; the simulation (serving.hpp), the steady state
// (steady_state.hpp) and the planner (plan.hpp) use them.

#include <string>

#include "engine/prediction.hpp"

namespace decodesim::serving {

// x prefill instances and y decode instances ("2P3D": x = 2, y = 3), each on the deployment's
// parallelism.devices() devices.
struct PoolShape {
    int prefill_instances = 1;
    int decode_instances = 1;

    int instances() const { return prefill_instances + decode_instances; }
};

// The link a prompt's KV cache crosses from a prefill to a decode instance, per device.
struct KvLink {
    core::Bandwidth bandwidth;  // per device, per direction, as the profile states it
    core::Seconds latency;      // one message
    double efficiency = 1.0;    // achieved over stated bandwidth (the engine's link_bandwidth)
    std::string name;           // "scale-out (InfiniBand NDR 400G)", "interconnect (NVLink 4)"
};

// The profile's scale-out network (the pools sit in different nodes), else its scale-up
// interconnect; the efficiency is engine::runtime_efficiency(hardware, runtime).link_bandwidth.
// Throws core::InputError when the profile names neither.
KvLink kv_link(const profiles::HardwareProfile& hardware, const engine::RuntimeProfile& runtime);

// The link between a prefill pool and a decode pool on different devices: each pool sits in its own
// nodes, so the cache crosses both sides' scale-out networks, at the slower one's bandwidth and the
// larger latency and the lower efficiency of the two. The same device on both sides: kv_link.
// Throws core::InputError when either side has no scale_out network.
KvLink kv_link_between(const engine::Evaluator& prefill, const engine::Evaluator& decode);

// Seconds to send one sequence's cache from the prefill pool's instance to the decode pool's: every
// device sends (receives) its own share over its own NIC, so the side with fewer devices sets the
// time (kv_transfer_seconds on its deployment).
double kv_transfer_seconds_between(const engine::Evaluator& prefill, const engine::Evaluator& decode,
                                   const KvLink& link, double tokens);

// Seconds to send the KV cache of one sequence of `tokens` tokens from a prefill to a decode
// instance: latency + bytes / (bandwidth x devices x efficiency), where bytes is the engine's
// kv_bytes_per_sequence (one device) x devices; every device of the sending instance sends its
// own share over its own NIC.
double kv_transfer_seconds(const engine::CostModel& cost, const engine::Deployment& deployment, const KvLink& link,
                           double tokens);

}  // namespace decodesim::serving
