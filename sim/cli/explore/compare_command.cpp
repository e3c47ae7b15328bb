// `decodesim compare`: several devices side by side for one workload.

#include <fmt/format.h>

#include <algorithm>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cli/usage_checks.hpp"
#include "cli/command.hpp"
#include "cli/price_option.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/point_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/value_range.hpp"
#include "report/explore/compare_output.hpp"
#include "explore/compare.hpp"
#include "core/registry.hpp"

namespace decodesim::cli {

namespace {

struct CompareOptions {
    PointOptions point;                 // point.deployment.hardware: "id[:devices],..."
    std::optional<double> target_tokens_per_s;
    std::string prices;                 // "id=usd,..."
    std::string price_file;             // --prices FILE
    std::string by = "total";
    bool json = false;
    bool csv = false;
};


int run_compare(const CompareOptions& options, const profiles::Catalog& catalog, Io io) {
    // The same resolver as every command: the choice from the shared flags, each device resolved
    // with it and its runtime (--runtime's, or each device's default).
    const engine::RuntimeChooser runtime_of = runtime_chooser(catalog, options.point.deployment.runtime);
    const profiles::ModelProfile model = catalog.model(options.point.deployment.model);
    const engine::Workload workload =
        options.point.workload.with_images(options.point.workload.workload(model.max_position_embeddings), model);
    warn_beyond_context(io, model, workload.max_context());
    std::vector<profiles::HardwareProfile> devices;
    std::vector<std::optional<int>> device_counts;
    for (const auto& item : core::parse_name_list(options.point.deployment.hardware, "--hardware")) {
        const auto [id, count] = hardware_with_devices(item, "--hardware");
        devices.push_back(catalog.hardware(id));
        device_counts.push_back(count);
    }
    apply_given_prices(options.prices, options.price_file, catalog, devices);
    std::vector<explore::Candidate> candidates;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        explore::Candidate candidate{devices[i], device_counts[i], nullptr};
        candidate.runtime = runtime_of(candidate.hardware);
        candidates.push_back(std::move(candidate));
    }
    explore::CompareOptions compare_options;
    compare_options.workload = workload;
    compare_options.target_tokens_per_s_per_stream = options.target_tokens_per_s;
    const auto order = core::named_or_throw(explore::kCompareOrderNames, options.by, "--by", "order").value;
    if (candidates.empty()) throw core::UsageError("--hardware: no device named");
    const engine::DeploymentChoice choice = deployment_choice(catalog, options.point.deployment, candidates.front().hardware);
    const auto rows = explore::compare(model, choice, candidates, compare_options, order);
    if (order == explore::CompareOrder::cost) {
        for (const auto& row : rows) {
            if (row.error.empty() && !row.usd_per_million_tokens) {
                warn(io, fmt::format("{} has no price: pass --price {}=USD_PER_HOUR", row.hardware, row.hardware));
            }
        }
    }
    if (options.json) {
        io.out << report::json_text(report::compare_to_json(model.id, workload, rows, options.point.workload.named_scenario()));
    } else if (options.csv) {
        io.out << report::compare_to_csv(model.id, workload, rows);
    } else {
        io.out << report::wrap_text(report::compare_to_text(model.id, workload, rows));
    }
    // A device runs the model when it resolves and holds the weights and one stream's KV cache.
    if (std::none_of(rows.begin(), rows.end(),
                     [](const explore::CompareRow& row) { return row.error.empty() && row.max_batch > 0; })) {
        throw core::NothingComputed(fmt::format(
            "no device in the comparison can run {}: none resolves and fits one stream in memory (see the table)", model.id));
    }
    return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<CompareOptions>();
    CLI::App* command = app.add_subcommand("compare", "What to buy: several devices side by side for one workload");
    add_point_options(*command, options->point);
    command->get_option("--hardware")
        ->description("Comma-separated hardware ids, each optionally :DEVICES (tensor parallel; default --tp), "
                      "e.g. h100-sxm,mi300x,rtx-4090:2");
    command->add_option("--target-tokens-per-s", options->target_tokens_per_s,
                        "Quote throughput at the largest batch that keeps each stream at this speed")
        ->check(number_in(1e-6, 1e9));
    command->add_option("--price", options->prices, "USD per device-hour, e.g. h100-sxm=2.49,mi300x=2.10 (overrides profiles)");
    command->add_option("--prices", options->price_file,
                        "A price list CSV, hardware,usd_per_hour[,basis][,date][,source]; --price wins over its rows");
    command->add_option("--by", options->by, "Sort by")->capture_default_str()->check(CLI::IsMember(core::names_of(explore::kCompareOrderNames)));
    auto* json = command->add_flag("--json", options->json, "Print JSON");
    auto* csv = command->add_flag("--csv", options->csv, "Print CSV");
    json->excludes(csv);
    run_when_parsed(command, run, options, &run_compare);
}

}  // namespace decodesim::cli
