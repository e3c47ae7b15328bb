// `decodesim why`: which resource bounds this operating point, and what doubling each would give.

#include <fmt/format.h>

#include <memory>

#include "cli/command.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/point_options.hpp"
#include "report/explore/why_output.hpp"
#include "explore/what_if.hpp"

namespace decodesim::cli {

namespace {

struct WhyOptions {
    PointOptions point;
    bool json = false;
};

int run_why(const WhyOptions& options, const profiles::Catalog& catalog, Io io) {
    const engine::OperatingPoint point = resolve_point(catalog, options.point, io);
    const explore::Explanation explanation = explore::explain(point);
    // When not one stream fits, the resolver has said why (the weights, or one stream's KV cache).
    if (explanation.capped_by_memory && one_stream_memory(point).max_batch >= 1) {
        warn(io, fmt::format("{} streams do not fit in memory: evaluated at {:.0f}, the most that fit",
                             options.point.workload.batch, explanation.effective_batch));
    }
    const report::Conditions conditions = point_conditions(point, options.point.workload);
    if (options.json) {
        io.out << report::json_text(report::why_to_json(conditions, explanation));
    } else {
        io.out << report::wrap_text(report::why_to_text(conditions, explanation));
    }
    return 0;
}

}  // namespace

void add_why_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<WhyOptions>();
    CLI::App* command = app.add_subcommand("why", "Will more FLOPS help? What bounds this operating point");
    add_point_options(*command, options->point);
    command->add_flag("--json", options->json, "Print one JSON object");
    run_when_parsed(command, run, options, &run_why);
}

}  // namespace decodesim::cli
