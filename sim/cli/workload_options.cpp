#include "cli/workload_options.hpp"

#include "cli/shared_options.hpp"

namespace decodesim::cli {

engine::Workload WorkloadOptions::workload() const {
    if (prompt) return engine::Workload::request(static_cast<double>(batch), static_cast<double>(*prompt), static_cast<double>(*output));
    return engine::Workload::step(static_cast<double>(batch), static_cast<double>(context.value_or(kDefaultContext)));
}

void add_workload_options(CLI::App& command, WorkloadOptions& options, bool hardware_required) {
    auto* hardware = command.add_option("--hardware", options.hardware, "Hardware id or path to a profile YAML");
    if (hardware_required) hardware->required();
    command.add_option("--model", options.model, "Model id, profile YAML, or Hugging Face config.json")->required();
    command.add_option("--weights", options.weights, "Weight format (docs/quantization.md)")->capture_default_str();
    command.add_option("--kv", options.kv, "KV-cache format (default: the activation type)");
    command.add_option("--batch", options.batch, "Concurrent sequences")
        ->capture_default_str()
        ->check(CLI::Range(1LL, kMaxBatch));
    auto* context = command.add_option("--context", options.context, "Tokens in each sequence's cache (default 1024)")
                        ->check(CLI::Range(1LL, kMaxTokens));
    auto* prompt =
        command.add_option("--prompt", options.prompt, "Prompt tokens of a request")->check(CLI::Range(1LL, kMaxTokens));
    auto* output =
        command.add_option("--output", options.output, "Output tokens of a request")->check(CLI::Range(1LL, kMaxTokens));
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command.add_option("--tp", options.tensor_parallel, "Tensor-parallel degree")
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxTensorParallel));
    command.add_option("--runtime", options.runtime, "Software stack: vllm, llama.cpp, tensorrt-llm or ideal (docs/model.md)")
        ->capture_default_str();
}

}  // namespace decodesim::cli
