#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include "cli/predict_command.hpp"
#include "cli/profiles_command.hpp"
#include "core/error.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

namespace {

// Every subcommand's options live here for the duration of one run; nothing is global.
struct Commands {
    PredictOptions predict;
    ProfilesOptions profiles;
};

}  // namespace

int run_cli(const std::vector<std::string>& args, Io io) {
    CLI::App app{"decodesim: roofline performance simulator for LLM inference", "decodesim"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "decodesim 0.1.0");
    std::string profile_root = profiles::default_profile_root();
    app.add_option("--profiles-dir", profile_root, "Folder holding hardware_profiles/ and model_profiles/")
        ->capture_default_str();

    Commands commands;
    CLI::App* predict = add_predict_command(app, commands.predict);
    const ProfilesCommands profiles_commands = add_profiles_command(app, commands.profiles);

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

    try {
        const profiles::Catalog catalog(profile_root);
        if (predict->parsed()) return run_predict(commands.predict, catalog, io);
        if (profiles_commands.list->parsed()) return run_profiles_list(commands.profiles, catalog, io);
        if (profiles_commands.show->parsed()) return run_profiles_show(commands.profiles, catalog, io);
        if (profiles_commands.validate->parsed()) return run_profiles_validate(commands.profiles, io);
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
