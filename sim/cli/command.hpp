#pragma once
// How a subcommand plugs into the command line. Each cli/*_command.cpp file defines
//   void add_<name>_command(CLI::App& app, CommandRun& run);
// which creates its subcommand and flags and, from the subcommand's callback, sets `run` to the
// work to do once the profile catalog is open. The build lists those files (sim/CMakeLists.txt
// generates cli/commands.inc from them), so adding a command is adding its file.

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

// The parsed subcommand's work; returns the exit code. Exceptions are turned into messages by run_cli.
using CommandRun = std::function<int(const profiles::Catalog& catalog, Io io)>;

// When `command` is the one parsed, `run` becomes `work` on its options (which the callback owns).
template <typename Options>
void run_when_parsed(CLI::App* command, CommandRun& run, std::shared_ptr<Options> options,
                     int (*work)(const Options&, const profiles::Catalog&, Io)) {
    command->callback([options, &run, work] {
        run = [options, work](const profiles::Catalog& catalog, Io io) { return work(*options, catalog, io); };
    });
}

}  // namespace decodesim::cli
