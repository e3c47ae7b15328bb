#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <functional>

#include "cli/accuracy_command.hpp"
#include "cli/check_claim_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/curve_command.hpp"
#include "cli/predict_command.hpp"
#include "cli/profiles_command.hpp"
#include "cli/report_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/why_command.hpp"
#include "core/error.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

namespace {

// Every subcommand's options live here for the duration of one run; nothing is global.
struct Commands {
    PredictOptions predict;
    CurveOptions curve;
    SweepOptions sweep;
    WhyOptions why;
    CheckClaimOptions check_claim;
    CompareOptions compare;
    ReportOptions report;
    AccuracyOptions accuracy;
    ProfilesOptions profiles;
};

// A parsed subcommand and what runs it.
struct Route {
    CLI::App* command;
    std::function<int(const profiles::Catalog&)> run;
};

}  // namespace

int run_cli(const std::vector<std::string>& args, Io caller_io) {
    CLI::App app{"decodesim: roofline performance simulator for LLM inference", "decodesim"};
    bool verbose = false;
    app.add_flag("-v,--verbose", verbose, "Log the profiles loaded and the assumptions made, on stderr");
    // A logger of this run only (not registered globally), writing to the caller's error stream.
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(caller_io.err);
    sink->set_pattern("decodesim: %l: %v");
    spdlog::logger logger("decodesim", sink);
    Io io{caller_io.out, caller_io.err, &logger};
    app.require_subcommand(1);
    app.set_version_flag("--version", "decodesim 0.1.0");
    std::string profile_root = profiles::default_profile_root();
    app.add_option("--profiles-dir", profile_root, "Folder holding hardware_profiles/ and model_profiles/")
        ->capture_default_str();

    Commands c;
    const ProfilesCommands profiles_commands = add_profiles_command(app, c.profiles);
    const std::vector<Route> routes{
        {add_predict_command(app, c.predict), [&](const auto& catalog) { return run_predict(c.predict, catalog, io); }},
        {add_curve_command(app, c.curve), [&](const auto& catalog) { return run_curve(c.curve, catalog, io); }},
        {add_sweep_command(app, c.sweep), [&](const auto& catalog) { return run_sweep(c.sweep, catalog, io); }},
        {add_why_command(app, c.why), [&](const auto& catalog) { return run_why(c.why, catalog, io); }},
        {add_check_claim_command(app, c.check_claim),
         [&](const auto& catalog) { return run_check_claim(c.check_claim, catalog, io); }},
        {add_compare_command(app, c.compare), [&](const auto& catalog) { return run_compare(c.compare, catalog, io); }},
        {add_report_command(app, c.report), [&](const auto& catalog) { return run_report(c.report, catalog, io); }},
        {add_accuracy_command(app, c.accuracy), [&](const auto& catalog) { return run_accuracy(c.accuracy, catalog, io); }},
        {profiles_commands.list, [&](const auto& catalog) { return run_profiles_list(c.profiles, catalog, io); }},
        {profiles_commands.show, [&](const auto& catalog) { return run_profiles_show(c.profiles, catalog, io); }},
        {profiles_commands.validate, [&](const auto&) { return run_profiles_validate(c.profiles, io); }},
    };

    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        io.out << app.help();
        return kSuccess;
    } catch (const CLI::CallForAllHelp&) {
        io.out << app.help("", CLI::AppFormatMode::All);
        return kSuccess;
    } catch (const CLI::CallForVersion&) {
        io.out << app.version() << "\n";
        return kSuccess;
    } catch (const CLI::ParseError& error) {
        io.err << "decodesim: error: " << error.what() << "\n";
        io.err << "Run 'decodesim --help' for usage.\n";
        return kBadCommandLine;
    }

    logger.set_level(verbose ? spdlog::level::info : spdlog::level::warn);
    logger.info("profiles from {}", profile_root);
    try {
        const profiles::Catalog catalog(profile_root);
        for (const auto& route : routes) {
            if (route.command->parsed()) return route.run(catalog);
        }
        io.err << "decodesim: error: no command given\n";
        return kBadCommandLine;
    } catch (const core::UsageError& error) {
        io.err << "decodesim: error: " << error.what() << "\n";
        return kBadCommandLine;
    } catch (const core::InputError& error) {
        for (const auto& diagnostic : error.diagnostics()) {
            io.err << (diagnostic.location.file.empty() ? "decodesim: " : "") << diagnostic.to_string() << "\n";
        }
        return kBadInput;
    } catch (const std::exception& error) {
        io.err << "decodesim: internal error: " << error.what() << "\n"
               << "This is a bug in decodesim; please report it with the command you ran.\n";
        return kInternalError;
    }
}

}  // namespace decodesim::cli
