#include "cli/predict_command.hpp"

#include "cli/shared_options.hpp"
#include "engine/prediction.hpp"
#include "report/predict_json.hpp"
#include "report/predict_text.hpp"

namespace decodesim::cli {

CLI::App* add_predict_command(CLI::App& app, PredictOptions& options) {
    CLI::App* command = app.add_subcommand("predict", "Predict decode speed, TTFT and memory for one operating point");
    command->add_option("--hardware", options.hardware, "Hardware id or path to a profile YAML")->required();
    command->add_option("--model", options.model, "Model id, profile YAML, or Hugging Face config.json")->required();
    command->add_option("--weights", options.weights, "Weight format (see docs/quantization.md)")->capture_default_str();
    command->add_option("--kv", options.kv, "KV-cache format (default: the activation type)");
    command->add_option("--batch", options.batch, "Concurrent sequences")->capture_default_str()->check(CLI::Range(1LL, kMaxBatch));
    auto* context = command->add_option("--context", options.context, "Tokens in each sequence's cache (default 1024)")
                        ->check(CLI::Range(1LL, kMaxTokens));
    auto* prompt = command->add_option("--prompt", options.prompt, "Prompt tokens of a request")->check(CLI::Range(1LL, kMaxTokens));
    auto* output = command->add_option("--output", options.output, "Output tokens of a request")->check(CLI::Range(1LL, kMaxTokens));
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command->add_option("--tp", options.tensor_parallel, "Tensor-parallel degree")->capture_default_str()->check(CLI::Range(1, kMaxTensorParallel));
    command->add_flag("--json", options.json, "Print one JSON object instead of the table");
    return command;
}

int run_predict(const PredictOptions& options, const profiles::Catalog& catalog, Io io) {
    const OperatingPoint point = resolve_operating_point(catalog, options.hardware, options.model, options.weights,
                                                         options.kv, options.tensor_parallel);
    engine::Workload workload;
    workload.batch = static_cast<double>(options.batch);
    workload.context = static_cast<double>(options.context.value_or(kDefaultContext));
    if (options.prompt) {
        workload.prompt = static_cast<double>(*options.prompt);
        workload.output = static_cast<double>(*options.output);
    }
    const engine::Evaluator evaluator(point.model, point.hardware, point.deployment, engine::default_efficiency(point.hardware));
    const engine::Prediction prediction = evaluator.predict(workload);

    for (const auto& warning : engine::model_warnings(point.model)) warn(io, warning);
    for (const auto& warning : prediction.warnings) warn(io, warning);
    const report::Conditions conditions = conditions_of(point);
    if (options.json) {
        io.out << report::prediction_to_json(conditions, prediction).dump(2) << "\n";
    } else {
        io.out << report::prediction_to_text(conditions, prediction);
    }
    return 0;
}

}  // namespace decodesim::cli
