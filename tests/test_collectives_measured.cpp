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
    double error = 0.0;  // predicted / measured - 1
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
        out.push_back({f[0], std::stod(f[5]), group.crosses_domain(), predicted / (std::stod(f[6]) * 1e-6) - 1.0});
    }
    return out;
}

}  // namespace

TEST_CASE("collectives against public nccl-tests and rccl-tests runs") {
    const auto all = residuals();
    std::set<std::string> sources;
    std::vector<double> errors, large, small_across;
    for (const auto& r : all) {
        sources.insert(r.source);
        errors.push_back(r.error);
        if (r.bytes >= 128e6) large.push_back(r.error);
        if (r.bytes <= 65536 && r.crosses) small_across.push_back(r.error);
    }
    REQUIRE(all.size() >= 40);
    CHECK(sources.size() >= 5);
    MESSAGE("rows ", all.size(), " from ", sources.size(), " sources; median |error| all ", median_abs(errors),
            ", >= 128 MB ", median_abs(large), ", small messages across nodes ", median_abs(small_across));
    // docs/validation.md, "Collectives": 27% over all rows; 20% for messages of 128 MB and more
    // (bandwidth-bound). Small messages between nodes are predicted 3 to 10x too fast (NCCL's
    // proxy path adds tens of microseconds per inter-node phase that a 5 us hop leaves out): the
    // message above prints that figure; it is reported, not bounded.
    CHECK(median_abs(errors) <= 0.30);
    CHECK(median_abs(large) <= 0.22);
}
