// `decodesim completion bash|zsh`: a shell completion script generated from this binary's own
// command tree (subcommands, their flags, the values a flag accepts), so it cannot drift from the
// command line. Hardware and model ids are not baked in: the script asks
// `decodesim profiles list hardware|models|runtimes --ids` when completing them, so profiles added later and
// a `--profiles-dir` given on the line are honoured.

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "core/quantization.hpp"
#include "engine/clocks.hpp"
#include "core/backend.hpp"
#include "engine/runtime.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::cli {

namespace {

// What a flag or positional takes, in the scripts' encoding: empty for a flag without a value,
// "text" (nothing to offer), "file", "hardware", "model", "runtime", "profile" (any id), or
// "words a b c" (a fixed set).
using ValueKind = std::string;

struct OptionSpec {
    std::vector<std::string> names;  // "-o", "--output-file"
    ValueKind value;
};

struct CommandSpec {
    std::string path;  // "" for decodesim itself, "profiles list" for a nested command
    std::vector<std::string> subcommands;
    std::vector<OptionSpec> options;
    ValueKind positional;  // empty when the command takes no positional argument
};

struct CompletionOptions {
    std::string shell;
    const CLI::App* app = nullptr;  // the whole command line; alive while the command runs
};

template <typename Table>
ValueKind words_of(const Table& table) {
    std::string words = "words";
    for (const auto& row : table) words += fmt::format(" {}", row.name);
    return words;
}

// Values named by CLI11's set check ("TEXT:{total,stream,ttft,cost}"), as "words ...".
ValueKind words_in_type_name(const std::string& type_name) {
    const auto open = type_name.find('{');
    const auto close = type_name.find('}', open);
    if (open == std::string::npos || close == std::string::npos) return "";
    std::string words = "words ";
    for (char c : type_name.substr(open + 1, close - open - 1)) words += c == ',' ? ' ' : c;
    return words;
}

bool mentions(const std::string& text, std::initializer_list<const char*> words) {
    std::string lower;
    for (char c : text) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (const char* word : words) {
        if (lower.find(word) != std::string::npos) return true;
    }
    return false;
}

// The flags whose values come from the project's own tables, by long name; the rest are read off
// the option itself (its set check, its type, its help).
ValueKind value_kind(const CLI::Option& option) {
    if (option.get_expected_max() == 0) return "";  // a flag
    const std::string name = option.get_lnames().empty() ? option.get_name() : option.get_lnames().front();
    if (name == "hardware") return "hardware";
    if (name == "model") return "model";
    if (name == "weights" || name == "vendor-weights" || name == "formats") return words_of(core::weight_formats());
    if (name == "kv") return words_of(core::kv_formats());
    if (name == "runtime") return "runtime";
    if (name == "backend") return words_of(core::kBackends);
    if (name == "scenario") return words_of(workload::workload_scenarios());
    if (name == "clocks" || name == "vendor-clocks") {
        return fmt::format("words {} {}", engine::clock_condition_name(engine::ClockCondition::sustained),
                           engine::clock_condition_name(engine::ClockCondition::peak));
    }
    const std::string type_name = option.get_type_name();
    if (ValueKind words = words_in_type_name(type_name); !words.empty()) return words;
    if (type_name.rfind("INT", 0) == 0 || type_name.rfind("UINT", 0) == 0 || type_name.rfind("FLOAT", 0) == 0) return "text";
    if (!option.nonpositional() && name == "id") return "profile";
    // Files to read or write say so in their help ("The HTML file to write", "Measurements CSV").
    if (mentions(option.get_description(), {"file", "csv", "svg", "trace", "path", "folder"})) return "file";
    return option.nonpositional() ? "text" : "file";
}

// Every visible command, depth first, with its path from the root.
void collect_commands(const CLI::App& command, const std::string& path, std::vector<CommandSpec>& specs) {
    CommandSpec spec;
    spec.path = path;
    std::vector<const CLI::App*> children;
    for (const CLI::App* child : command.get_subcommands({})) {
        if (child->get_group().empty()) continue;  // hidden
        spec.subcommands.push_back(child->get_name());
        children.push_back(child);
    }
    for (const CLI::Option* option : command.get_options({})) {
        if (option->get_group().empty()) continue;  // hidden
        if (!option->nonpositional()) {
            spec.positional = value_kind(*option);
            continue;
        }
        OptionSpec option_spec;
        for (const auto& short_name : option->get_snames()) option_spec.names.push_back("-" + short_name);
        for (const auto& long_name : option->get_lnames()) option_spec.names.push_back("--" + long_name);
        option_spec.value = value_kind(*option);
        spec.options.push_back(std::move(option_spec));
    }
    specs.push_back(std::move(spec));
    for (const CLI::App* child : children) {
        collect_commands(*child, path.empty() ? child->get_name() : path + " " + child->get_name(), specs);
    }
}

// Names, ids and words are plain tokens; quoting still keeps a stray quote from breaking the script.
std::string shell_quoted(const std::string& text) {
    std::string result = "'";
    for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return result + "'";
}

// The command tree as shell functions both bash and zsh read (plain `case` and `echo`):
//   _decodesim_subcommands PATH      the subcommands of PATH
//   _decodesim_options PATH          its flags
//   _decodesim_value PATH FLAG       what FLAG takes there (empty: nothing)
//   _decodesim_positional PATH       what its positional argument takes (empty: none)
std::string command_tables(const std::vector<CommandSpec>& specs) {
    std::string subcommands, options, values, positionals;
    for (const CommandSpec& spec : specs) {
        std::string names;
        for (const auto& child : spec.subcommands) names += (names.empty() ? "" : " ") + child;
        if (!names.empty()) subcommands += fmt::format("        {}) echo {} ;;\n", shell_quoted(spec.path), shell_quoted(names));
        std::string flags;
        for (const auto& option : spec.options) {
            for (const auto& name : option.names) {
                flags += (flags.empty() ? "" : " ") + name;
                if (!option.value.empty()) {
                    values += fmt::format("        {}) echo {} ;;\n", shell_quoted(spec.path + "|" + name), shell_quoted(option.value));
                }
            }
        }
        options += fmt::format("        {}) echo {} ;;\n", shell_quoted(spec.path), shell_quoted(flags));
        if (!spec.positional.empty()) {
            positionals += fmt::format("        {}) echo {} ;;\n", shell_quoted(spec.path), shell_quoted(spec.positional));
        }
    }
    const auto function = [](const char* name, const char* subject, const std::string& cases) {
        return fmt::format("{}() {{\n    case \"{}\" in\n{}    esac\n}}\n", name, subject, cases);
    };
    return function("_decodesim_subcommands", "$1", subcommands) + function("_decodesim_options", "$1", options) +
           function("_decodesim_value", "$1|$2", values) + function("_decodesim_positional", "$1", positionals);
}

constexpr const char* kBashMain = R"script(
# Hardware or model ids from the binary being completed, with any --profiles-dir given before the
# command; nothing when it cannot say.
_decodesim_ids() {
    "${COMP_WORDS[0]}" "${_decodesim_root_args[@]}" profiles list "$1" --ids 2>/dev/null
}

# COMPREPLY for a value of kind $1 with $2 typed so far. Lists (a,b,c) complete their last item.
_decodesim_values() {
    local kind=$1 cur=$2 list_prefix='' candidates=''
    if [[ $cur == *,* ]]; then
        list_prefix=${cur%,*},
        cur=${cur##*,}
    fi
    case $kind in
        words\ *) candidates=${kind#words } ;;
        hardware) candidates=$(_decodesim_ids hardware) ;;
        model) candidates=$(_decodesim_ids models) ;;
        runtime) candidates=$(_decodesim_ids runtimes) ;;
        profile) candidates="$(_decodesim_ids hardware) $(_decodesim_ids models) $(_decodesim_ids runtimes)" ;;
    esac
    COMPREPLY=($(compgen -P "$list_prefix" -W "$candidates" -- "$cur"))
    case $kind in
        hardware | model | runtime | profile | file)
            if [[ -z $list_prefix ]]; then
                compopt -o filenames 2>/dev/null
                COMPREPLY+=($(compgen -f -- "$cur"))
            fi
            ;;
    esac
}

_decodesim() {
    local cur=${COMP_WORDS[COMP_CWORD]} command_path='' word i kind option=''
    local -a _decodesim_root_args=()
    COMPREPLY=()
    # The command path so far (`profiles list`; not `path`, which zsh ties to $PATH), skipping flags and the values they take.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == -* ]]; then
            [[ $word == *=* ]] && continue
            kind=$(_decodesim_value "$command_path" "$word")
            [[ -z $kind ]] && continue
            # bash splits `--flag=value` at '=' into three words.
            [[ ${COMP_WORDS[i + 1]} == '=' ]] && ((i++))
            ((i++))
            if [[ -z $command_path && $word == --profiles-dir && $i -lt $COMP_CWORD ]]; then
                _decodesim_root_args=(--profiles-dir "${COMP_WORDS[i]}")
            fi
        elif [[ " $(_decodesim_subcommands "$command_path") " == *" $word "* ]]; then
            command_path=${command_path:+$command_path }$word
        fi
    done
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [[ $cur == '=' && $prev == -* ]]; then
        option=$prev
        cur=''
    elif [[ $prev == '=' ]]; then
        option=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == -*=* ]]; then
        option=${cur%%=*}
        cur=${cur#*=}
    elif [[ $prev == -* ]]; then
        option=$prev
    fi
    if [[ -n $option ]]; then
        kind=$(_decodesim_value "$command_path" "$option")
        if [[ -n $kind ]]; then
            _decodesim_values "$kind" "$cur"
            return 0
        fi
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_decodesim_options "$command_path")" -- "$cur"))
        return 0
    fi
    local subcommands
    subcommands=$(_decodesim_subcommands "$command_path")
    if [[ -n $subcommands ]]; then
        COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
        return 0
    fi
    kind=$(_decodesim_positional "$command_path")
    [[ -n $kind ]] && _decodesim_values "$kind" "$cur"
    return 0
}

complete -F _decodesim decodesim
)script";

constexpr const char* kZshMain = R"script(
# Hardware or model ids from the binary being completed, with any --profiles-dir given before the
# command; nothing when it cannot say.
_decodesim_ids() {
    "${words[1]}" "${_decodesim_root_args[@]}" profiles list "$1" --ids 2>/dev/null
}

# Completions for a value of kind $1. Lists (a,b,c) complete their last item.
_decodesim_values() {
    local kind=$1 candidates=''
    compset -P '*,'
    case $kind in
        words\ *) candidates=${kind#words } ;;
        hardware) candidates=$(_decodesim_ids hardware) ;;
        model) candidates=$(_decodesim_ids models) ;;
        runtime) candidates=$(_decodesim_ids runtimes) ;;
        profile) candidates="$(_decodesim_ids hardware) $(_decodesim_ids models) $(_decodesim_ids runtimes)" ;;
    esac
    [[ -n $candidates ]] && compadd -- ${=candidates}
    case $kind in
        hardware | model | runtime | profile | file) [[ $IPREFIX != *, ]] && _files ;;
    esac
}

_decodesim() {
    local command_path='' word kind option='' i
    local -a _decodesim_root_args
    # The command path so far (`profiles list`; not `path`, which zsh ties to $PATH), skipping flags and the values they take.
    for ((i = 2; i < CURRENT; i++)); do
        word=${words[i]}
        if [[ $word == -* ]]; then
            [[ $word == *=* ]] && continue
            kind=$(_decodesim_value "$command_path" "$word")
            [[ -z $kind ]] && continue
            ((i++))
            if [[ -z $command_path && $word == --profiles-dir && $i -lt $CURRENT ]]; then
                _decodesim_root_args=(--profiles-dir "${words[i]}")
            fi
        elif [[ " $(_decodesim_subcommands "$command_path") " == *" $word "* ]]; then
            command_path=${command_path:+$command_path }$word
        fi
    done
    local cur=${words[CURRENT]} prev=${words[CURRENT - 1]}
    if [[ $cur == -*=* ]]; then
        option=${cur%%=*}
        compset -P '*='
    elif [[ $prev == -* ]]; then
        option=$prev
    fi
    if [[ -n $option ]]; then
        kind=$(_decodesim_value "$command_path" "$option")
        if [[ -n $kind ]]; then
            _decodesim_values "$kind"
            return 0
        fi
    fi
    if [[ $cur == -* ]]; then
        compadd -- ${=$(_decodesim_options "$command_path")}
        return 0
    fi
    local subcommands
    subcommands=$(_decodesim_subcommands "$command_path")
    if [[ -n $subcommands ]]; then
        compadd -- ${=subcommands}
        return 0
    fi
    kind=$(_decodesim_positional "$command_path")
    [[ -n $kind ]] && _decodesim_values "$kind"
    return 0
}

# Loaded from $fpath as `_decodesim`, or sourced.
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _decodesim "$@"
else
    compdef _decodesim decodesim
fi
)script";

int run_completion(const CompletionOptions& options, const profiles::Catalog&, Io io) {
    std::vector<CommandSpec> specs;
    collect_commands(*options.app, "", specs);
    const bool zsh = options.shell == "zsh";
    io.out << (zsh ? "#compdef decodesim\n" : "")
           << fmt::format("# {} completion for decodesim, generated by `decodesim completion {}` from its own commands.\n"
                          "# Installing it: docs/cli.md, \"Shell completion\".\n\n",
                          options.shell, options.shell)
           << command_tables(specs) << (zsh ? kZshMain : kBashMain);
    return 0;
}

}  // namespace

void add_completion_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<CompletionOptions>();
    // The tree is walked when the command runs, once every other command has been added.
    options->app = &app;
    CLI::App* command = app.add_subcommand("completion", "Print a shell completion script (bash or zsh)");
    command->add_option("shell", options->shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
    run_when_parsed(command, run, options, &run_completion);
}

}  // namespace decodesim::cli
