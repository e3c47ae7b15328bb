#pragma once
// What a command line meant, checked before CLI11 parses it, so that a typo gets "did you mean"
// and a pointer to the right help instead of CLI11's generic messages ("A subcommand is
// required", a misspelt flag reported as a missing one).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace decodesim::cli {

struct CommandLineShape {
    std::optional<std::string> command;  // the first word that is not a global option
    std::size_t command_position = 0;    // its index in the arguments
    bool asks_for_help_or_version = false;  // -h, --help, --help-all or --version before any command
};

CommandLineShape command_line_shape(const std::vector<std::string>& args);

// An unknown subcommand or an unknown flag of a known one, as a one-line message with a
// suggestion; nothing when the words pass (CLI11 then checks the rest).
std::optional<std::string> unknown_word(const CLI::App& app, const std::vector<std::string>& args,
                                        const CommandLineShape& shape);

// Puts every numeric option of every command under core's number grammar (core/units.hpp,
// parse_number and parse_whole_number), the one used for files too: "010" is ten, hex, NaN and
// infinities are refused, whole numbers beyond 2^53 are refused rather than rounded. Called once,
// after every command has added its options.
void apply_number_grammar(CLI::App& app);

// A number from `least` to `most`, both stated as written ("1e-09", not CLI::Range's fixed-point
// "0.000000", which made "Value 0 not in range 0.000000 to ..." contradict itself). The floor of a
// rate or a latency target stands for "more than nothing" and keeps a run's times finite.
CLI::Validator number_in(double least, double most);

// The names of the subcommands, in the order they were added.
std::vector<std::string> command_names(const CLI::App& app);

// "Run 'decodesim predict --help' for its flags." or the top-level pointer.
std::string help_pointer(const std::optional<std::string>& command);

}  // namespace decodesim::cli
