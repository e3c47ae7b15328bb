#pragma once
// What to type to run a planned deployment, and to check it once the hardware is there: the
// serving command of the option's runtime with the layout, formats and scheduler limits the plan
// assumed, and the load generator that replays the planned workload against it.

#include <optional>
#include <string>
#include <vector>

#include "serving/plan.hpp"

namespace decodesim::report {

struct LaunchCommand {
    // One instance (vllm serve, python -m sglang.launch_server, trtllm-serve, llama-server); with
    // disaggregated pools, a prefill instance.
    std::string serve;
    std::optional<std::string> serve_decode;  // disaggregated: a decode instance
    // Disaggregated: what sends each request to a prefill and a decode instance; under an
    // orchestrator, its front end, colocated or not.
    std::optional<std::string> router;
    std::string verify;   // the load of the plan, replayed against it (vllm bench serve or sglang.bench_serving)
    // Under an orchestrator deployed from a file (llm-d): the file, its name, and what deploys it;
    // `serve` is then empty.
    std::optional<std::string> manifest;
    std::string manifest_file;
    std::string install;
    std::vector<std::string> notes;  // replicas, disaggregated pools, formats a flag cannot set
};

// A command line's words as a shell reads them: split at blanks, a '...' or "..." span one word
// without its quotes.
std::vector<std::string> shell_words(const std::string& line);

// Words as one YAML flow sequence of double-quoted strings: ["--max-num-seqs", "256"].
std::string yaml_string_list(const std::vector<std::string>& words);

// The Hugging Face repository a model profile's `source:` names (huggingface.co/ORG/NAME/...),
// or nothing when it names none.
std::optional<std::string> hugging_face_repo(const std::string& source);

// The workload a plan was asked for, for the load generator.
struct PlannedLoad {
    double prompt_tokens = 0.0;
    double output_tokens = 0.0;
    std::optional<double> rate_per_s;  // open loop
    std::optional<double> users;       // closed loop
    // What the plan's workload has that the load generator does not send: it sends random prompts
    // of the mean lengths, Poisson or all at once, each request on its own, no client thinking.
    // One phrase each ("lengths drawn as ..., sent at their means"); empty: the same load.
    std::vector<std::string> not_replayed;
    // At a rate: the gamma shape of the gaps where they are not Poisson (a scenario's burstiness),
    // which a generator whose template has a `bursty` verify flag sends, and another is noted.
    std::optional<double> burstiness;
};

// Nothing for a runtime without a serving command decodesim knows (the roofline, MLX, ...).
// `orchestrator`: the runtime's engine under that framework's front end (the runtime profile's
// launch.orchestrators, by name); nothing when the runtime states none of that name.
std::optional<LaunchCommand> launch_command(const serving::PlanOption& option, const std::string& model,
                                            const PlannedLoad& load, const std::string& orchestrator = "");

}  // namespace decodesim::report
