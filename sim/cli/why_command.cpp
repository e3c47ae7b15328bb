#include "cli/why_command.hpp"

#include <fmt/format.h>

#include "cli/shared_options.hpp"
#include "report/why_output.hpp"
#include "scenarios/what_if.hpp"

namespace decodesim::cli {

CLI::App* add_why_command(CLI::App& app, WhyOptions& options) {
    CLI::App* command = app.add_subcommand("why", "Will more FLOPS help? What bounds this operating point");
    add_workload_options(*command, options.point);
    command->add_flag("--json", options.json, "Print one JSON object");
    return command;
}

int run_why(const WhyOptions& options, const profiles::Catalog& catalog, Io io) {
    const OperatingPoint point = resolve_operating_point(catalog, options.point, io);
    const scenarios::Explanation explanation =
        scenarios::explain(point.model, point.hardware, point.deployment, options.point.workload());
    if (explanation.capped_by_memory) {
        warn(io, fmt::format("{} streams do not fit in memory: evaluated at {:.0f}, the most that fit",
                             options.point.batch, explanation.effective_batch));
    }
    const report::Conditions conditions = conditions_of(point);
    if (options.json) {
        io.out << report::why_to_json(conditions, explanation).dump(2) << "\n";
    } else {
        io.out << report::why_to_text(conditions, explanation);
    }
    return 0;
}

}  // namespace decodesim::cli
