#pragma once
// Collective communication between the devices of a parallel group, in the latency-bandwidth
// (alpha-beta) model: each algorithm costs hops x latency + bytes over the link x a factor that
// depends on the group size. The algorithm is chosen by size, as NCCL and RCCL do: a tree or
// recursive doubling for small messages (fewer hops), a ring for large ones (less traffic per
// link). A group larger than its scale-up domain runs hierarchically, with the part between
// domains at the scale-out network's figures. Formulas and their sources: docs/model.md,
// "Collectives"; the measurements they are checked against: validation/collectives.csv.

#include <string_view>

#include "core/units.hpp"

namespace decodesim::engine {

enum class Collective {
    all_reduce,      // every device ends with the sum of every device's buffer
    all_gather,      // every device ends with every device's shard
    reduce_scatter,  // every device ends with its shard of the sum
    all_to_all,      // every device sends a distinct part of its buffer to every other device
    send,            // one device to the next (a pipeline hop)
};

enum class CollectiveAlgorithm { none, ring, tree, recursive_doubling, pairwise, hierarchical, point_to_point };

std::string_view collective_name(Collective collective);
std::string_view algorithm_name(CollectiveAlgorithm algorithm);

// One level of links: what a device achieves per direction, and the latency of one hop.
struct LinkLevel {
    core::Bandwidth bandwidth;
    core::Seconds latency;
};

// Where a group's devices sit.
struct GroupTopology {
    int devices = 1;     // in the group
    int per_domain = 1;  // of them in one scale-up domain: devices when the group fits in one
    LinkLevel scale_up;
    LinkLevel scale_out;  // used only when the group crosses domains

    bool crosses_domain() const { return devices > per_domain; }
    int domains() const { return (devices + per_domain - 1) / per_domain; }
};

struct CollectiveTime {
    core::Seconds time;      // latency + transfer
    core::Seconds latency;   // hops x per-hop latency
    core::Seconds transfer;  // bytes over the links
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::none;
};

// The time of one collective. `bytes` is the buffer as the collective's API takes it, per device:
//   all_reduce      the vector each device contributes (and receives back summed)
//   all_gather      the gathered result each device ends with (p shards)
//   reduce_scatter  the vector each device contributes (it keeps 1/p of the sum)
//   all_to_all      everything one device sends, its own part included (p parts)
//   send            the message
// A group of one device costs nothing.
CollectiveTime collective_time(Collective collective, core::Bytes bytes, const GroupTopology& group);

// The group of `devices` consecutive devices, placed in domains of `domain` devices, on links
// `scale_up` and `scale_out`.
GroupTopology group_topology(int devices, int domain, LinkLevel scale_up, LinkLevel scale_out);

}  // namespace decodesim::engine
