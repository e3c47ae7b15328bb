#include "engine/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::engine {

std::string_view collective_name(Collective collective) {
    switch (collective) {
        case Collective::all_reduce: return "all-reduce";
        case Collective::all_gather: return "all-gather";
        case Collective::reduce_scatter: return "reduce-scatter";
        case Collective::all_to_all: return "all-to-all";
        case Collective::send: return "send";
    }
    return "?";
}

std::string_view algorithm_name(CollectiveAlgorithm algorithm) {
    switch (algorithm) {
        case CollectiveAlgorithm::none: return "none";
        case CollectiveAlgorithm::ring: return "ring";
        case CollectiveAlgorithm::tree: return "tree";
        case CollectiveAlgorithm::recursive_doubling: return "recursive doubling";
        case CollectiveAlgorithm::pairwise: return "pairwise";
        case CollectiveAlgorithm::hierarchical: return "hierarchical";
        case CollectiveAlgorithm::point_to_point: return "point to point";
    }
    return "?";
}

namespace {

CollectiveTime make(core::Seconds latency, core::Seconds transfer, CollectiveAlgorithm algorithm) {
    return {latency + transfer, latency, transfer, algorithm};
}

const CollectiveTime& faster(const CollectiveTime& a, const CollectiveTime& b) { return b.time < a.time ? b : a; }

double ceil_log2(int devices) { return std::ceil(std::log2(static_cast<double>(devices))); }

// One collective among `p` devices on one level of links (Thakur, Rabenseifner and Gropp 2005;
// NCCL's ring and double binary tree).
CollectiveTime flat(Collective collective, core::Bytes bytes, int p, const LinkLevel& link) {
    if (p <= 1) return {};
    const double n = static_cast<double>(p);
    const core::Seconds alpha = link.latency;
    const core::Seconds full = bytes / link.bandwidth;  // the whole buffer over one link
    switch (collective) {
        case Collective::all_reduce: {
            // Ring: reduce-scatter then all-gather, 2(p-1) hops, 2(p-1)/p of the buffer per link.
            const CollectiveTime ring = make(alpha * (2.0 * (n - 1.0)), full * (2.0 * (n - 1.0) / n),
                                             CollectiveAlgorithm::ring);
            // Tree: up and down a binary tree, 2 log2 p hops, the whole buffer twice per link
            // (pipelined in chunks, so not multiplied by the depth).
            const CollectiveTime tree = make(alpha * (2.0 * ceil_log2(p)), full * 2.0, CollectiveAlgorithm::tree);
            return faster(ring, tree);
        }
        case Collective::all_gather:
        case Collective::reduce_scatter: {
            const CollectiveTime ring = make(alpha * (n - 1.0), full * ((n - 1.0) / n), CollectiveAlgorithm::ring);
            // Recursive doubling/halving: log2 p hops with the same traffic, for powers of two.
            if ((p & (p - 1)) != 0) return ring;
            const CollectiveTime doubling =
                make(alpha * ceil_log2(p), full * ((n - 1.0) / n), CollectiveAlgorithm::recursive_doubling);
            return faster(ring, doubling);
        }
        case Collective::all_to_all:
            // Pairwise exchange: p - 1 rounds, each sending 1/p of the buffer.
            return make(alpha * (n - 1.0), full * ((n - 1.0) / n), CollectiveAlgorithm::pairwise);
        case Collective::send: return make(alpha, full, CollectiveAlgorithm::point_to_point);
    }
    return {};
}

// A group spanning `m` domains of `d` devices each: the standard two-level schemes.
CollectiveTime hierarchical(Collective collective, core::Bytes bytes, const GroupTopology& group) {
    const int d = group.per_domain;
    const int m = group.domains();
    const double p = static_cast<double>(group.devices);
    // NCCL pipelines the phases chunk by chunk, each on its own links: the hops of every phase add
    // up, and the slowest phase's transfer sets the pace (docs/model.md, "Collectives").
    CollectiveTime total{};
    auto add = [&](const CollectiveTime& part) {
        total.latency += part.latency;
        total.transfer = core::max(total.transfer, part.transfer);
    };
    switch (collective) {
        case Collective::all_reduce:
            // Reduce-scatter inside each domain, all-reduce each 1/d shard across domains (every
            // device with its own NIC), all-gather inside the domain.
            add(flat(Collective::reduce_scatter, bytes, d, group.scale_up));
            add(flat(Collective::all_reduce, bytes / static_cast<double>(d), m, group.scale_out));
            add(flat(Collective::all_gather, bytes, d, group.scale_up));
            break;
        case Collective::all_gather:
            // Across domains on the 1/d slice each device is responsible for, then inside.
            add(flat(Collective::all_gather, bytes / static_cast<double>(d), m, group.scale_out));
            add(flat(Collective::all_gather, bytes, d, group.scale_up));
            break;
        case Collective::reduce_scatter:
            add(flat(Collective::reduce_scatter, bytes, d, group.scale_up));
            add(flat(Collective::reduce_scatter, bytes / static_cast<double>(d), m, group.scale_out));
            break;
        case Collective::all_to_all: {
            // Parts for peers in the same domain go over the scale-up link, the rest over the NIC,
            // both at once: the slower side sets the time. Sends to the peers of one remote domain
            // are posted together, so each remote domain costs one scale-out hop of latency.
            const core::Seconds inside = bytes * ((d - 1.0) / p) / group.scale_up.bandwidth;
            const core::Seconds outside = bytes * ((p - d) / p) / group.scale_out.bandwidth;
            total.transfer = core::max(inside, outside);
            total.latency = group.scale_up.latency * (d - 1.0) + group.scale_out.latency * (m - 1.0);
            break;
        }
        case Collective::send: return flat(Collective::send, bytes, 2, group.scale_out);
    }
    total.time = total.latency + total.transfer;
    total.algorithm = CollectiveAlgorithm::hierarchical;
    return total;
}

}  // namespace

CollectiveTime collective_time(Collective collective, core::Bytes bytes, const GroupTopology& group) {
    if (group.devices <= 1) return {};
    if (!group.crosses_domain()) return flat(collective, bytes, group.devices, group.scale_up);
    return hierarchical(collective, bytes, group);
}

GroupTopology group_topology(int devices, int domain, LinkLevel scale_up, LinkLevel scale_out) {
    GroupTopology group;
    group.devices = std::max(1, devices);
    group.per_domain = std::clamp(domain, 1, group.devices);
    group.scale_up = scale_up;
    group.scale_out = scale_out;
    return group;
}

}  // namespace decodesim::engine
