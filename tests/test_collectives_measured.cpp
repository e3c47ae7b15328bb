// The collective model against public nccl-tests and rccl-tests runs (validation/collectives.csv,
// sources in validation/collectives.md). No constant was fitted on these rows: the links are the
// profiles' datasheet figures at the engine's default link efficiency (0.77, from other NCCL
// bus-bandwidth sources in docs/evidence/efficiency-sources.md, section 3). The bounds asserted are
// the errors docs/validation.md reports ("Collectives"); they guard against a regression, and a
// change that improves the fit should tighten them.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/efficiency.hpp"
#include "engine/topology.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

// One CSV line into fields; a quoted field may hold commas.
std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

engine::Collective collective_named(const std::string& name) {
    static const std::map<std::string, engine::Collective> names{
        {"all_reduce", engine::Collective::all_reduce},     {"all_gather", engine::Collective::all_gather},
        {"reduce_scatter", engine::Collective::reduce_scatter}, {"all_to_all", engine::Collective::all_to_all},
        {"send", engine::Collective::send}};
    return names.at(name);
}

struct Residual {
    std::string source;
    double bytes = 0.0;
    bool crosses = false;
    std::string network;  // the row's network column: infiniband, roce, efa, ... (scale-up: none crossed)
    double error = 0.0;   // predicted / measured - 1
};

double median_abs(std::vector<double> values) {
    for (double& v : values) v = std::fabs(v);
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<Residual> residuals() {
    const auto catalog = testing::shipped_catalog();
    std::ifstream file(std::string(DECODESIM_ROOT) + "/validation/collectives.csv");
    std::string line;
    std::getline(file, line);  // header
    std::vector<Residual> out;
    while (std::getline(file, line)) {
        if (line.empty()) continue;
        const auto f = split_csv(line);
        const auto& hardware = catalog.hardware(f[1]);
        const int devices = std::stoi(f[3]);
        const int per_node = std::stoi(f[4]);
        const double efficiency = engine::runtime_efficiency(hardware, *testing::test_runtime("vllm")).link_bandwidth;
        engine::LinkLevel up{hardware.interconnect->bandwidth * efficiency, hardware.interconnect->latency};
        engine::LinkLevel network{};
        if (hardware.scale_out) network = {hardware.scale_out->bandwidth * efficiency, hardware.scale_out->latency};
        const int domain = std::min(per_node, engine::scale_up_domain(hardware));
        const auto group = engine::group_topology(devices, domain, up, network);
        const double predicted =
            engine::collective_time(collective_named(f[2]), core::Bytes(std::stod(f[5])), group).time.value;
        REQUIRE(f.size() == 11);
        out.push_back({f[0], std::stod(f[5]), group.crosses_domain(), f[10], predicted / (std::stod(f[6]) * 1e-6) - 1.0});
    }
    return out;
}

}  // namespace

TEST_CASE("collectives against public nccl-tests and rccl-tests runs") {
    const auto all = residuals();
    std::set<std::string> sources;
    std::vector<double> errors, large, small_across, small_infiniband, large_infiniband;
    for (const auto& r : all) {
        sources.insert(r.source);
        errors.push_back(r.error);
        if (r.bytes >= 128e6) large.push_back(r.error);
        if (r.bytes <= 65536 && r.crosses) small_across.push_back(r.error);
        // The profiles' network: InfiniBand NDR, one NIC a GPU, without switch offload.
        if (r.network == "infiniband" && r.bytes <= 65536) small_infiniband.push_back(r.error);
        if (r.network == "infiniband" && r.bytes >= 128e6) large_infiniband.push_back(r.error);
    }
    REQUIRE(all.size() >= 100);
    CHECK(sources.size() >= 14);
    REQUIRE(small_infiniband.size() >= 10);
    MESSAGE("rows ", all.size(), " from ", sources.size(), " sources; median |error| all ", median_abs(errors),
            ", >= 128 MB ", median_abs(large), ", small messages across nodes ", median_abs(small_across),
            ", of them over InfiniBand ", median_abs(small_infiniband), ", >= 128 MB over InfiniBand ",
            median_abs(large_infiniband));
    // docs/validation.md, "Collectives": 47% over all rows, 24% for messages of 128 MB and more
    // (bandwidth-bound). Small messages between nodes are predicted 2 to 10 times too fast over
    // EFA, RoCE and GCP's TCPXO, whose proxy paths cost tens to hundreds of microseconds an
    // inter-node phase; over InfiniBand, the network the profiles state, within 32%. Each bound is
    // the figure with a little room: a regression guard, not a target.
    CHECK(median_abs(errors) <= 0.50);
    CHECK(median_abs(large) <= 0.26);
    CHECK(median_abs(small_infiniband) <= 0.35);
}
