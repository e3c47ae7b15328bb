#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>


#include "cli/command.hpp"
#include "cli/help_format.hpp"
#include "cli/usage_checks.hpp"
#include "core/suggest.hpp"
#include "core/error.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

// Every cli/*_command.cpp file's entry point, from the list the build generates.
#define DECODESIM_COMMAND(name) void add_##name(CLI::App& app, CommandRun& run);
#include "cli/commands.inc"
#undef DECODESIM_COMMAND

int run_cli(const std::vector<std::string>& args, Io caller_io) {
    CLI::App app{"decodesim: roofline performance simulator for LLM inference", "decodesim"};
    app.formatter(wrapping_help_formatter());  // before the commands: each takes its parent's
    bool verbose = false;
    app.add_flag("-v,--verbose", verbose, "Log the profiles loaded and the assumptions made, on stderr");
    // A logger of this run only (not registered globally), writing to the caller's error stream.
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(caller_io.err);
    sink->set_pattern("decodesim: %l: %v");
    spdlog::logger logger("decodesim", sink);
    std::set<std::string> warned;
    Io io{caller_io.out, caller_io.err, &logger, &warned, caller_io.sweep_points, caller_io.progress};
    app.require_subcommand(1);
    app.set_version_flag("--version", "decodesim 0.1.0");
    std::string profile_root = profiles::default_profile_root();
    app.add_option("--profiles-dir", profile_root, "Folder holding hardware_profiles/ and model_profiles/")
        ->capture_default_str();

    // The parsed subcommand's callback sets `run`; its options live in the callback, not here.
    CommandRun run;
#define DECODESIM_COMMAND(name) add_##name(app, run);
#include "cli/commands.inc"
#undef DECODESIM_COMMAND
    apply_number_grammar(app);

    // Before CLI11: help for a bare `decodesim` and `decodesim help [COMMAND]`, and "did you mean"
    // for an unknown command or flag (cli/usage_checks.hpp).
    const CommandLineShape shape = command_line_shape(args);
    std::optional<std::string> known_command;
    if (shape.command && shape.command != "help" && !app.get_subcommands([&](const CLI::App* command) {
                                                              return command->get_name() == *shape.command;
                                                          }).empty()) {
        known_command = shape.command;
    }
    if (!shape.command && !shape.asks_for_help_or_version) {
        io.out << app.help();
        return kSuccess;
    }
    if (shape.command == "help") {
        if (shape.command_position + 1 >= args.size()) {
            io.out << app.help();
            return kSuccess;
        }
        const std::string& topic = args[shape.command_position + 1];
        for (const CLI::App* command : app.get_subcommands({})) {
            if (command->get_name() == topic) {
                io.out << command->help();
                return kSuccess;
            }
        }
        io.err << "decodesim: error: help: unknown command '" << topic << "'"
               << core::suggestion_note(topic, command_names(app)) << "\n"
               << help_pointer(std::nullopt) << "\n";
        return kBadCommandLine;
    }
    if (const auto problem = unknown_word(app, args, shape)) {
        io.err << "decodesim: error: " << *problem << "\n" << help_pointer(known_command) << "\n";
        return kBadCommandLine;
    }

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
        io.err << help_pointer(known_command) << "\n";
        return kBadCommandLine;
    }

    logger.set_level(verbose ? spdlog::level::info : spdlog::level::warn);
    logger.info("profiles from {}", profile_root);
    try {
        if (!run) {
            io.err << "decodesim: error: no command given\n";
            return kBadCommandLine;
        }
        const profiles::Catalog catalog(profile_root);
        return run(catalog, io);
    } catch (const core::UsageError& error) {
        io.err << "decodesim: error: " << error.what() << "\n";
        return kBadCommandLine;
    } catch (const core::NothingComputed& error) {
        io.err << "decodesim: error: nothing computed: " << error.what() << "\n";
        return kNothingComputed;
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
