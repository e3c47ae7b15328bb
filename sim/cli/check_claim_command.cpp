#include "cli/check_claim_command.hpp"

#include "cli/shared_options.hpp"
#include "report/claim_output.hpp"
#include "scenarios/claim_check.hpp"

namespace decodesim::cli {

CLI::App* add_check_claim_command(CLI::App& app, CheckClaimOptions& options) {
    CLI::App* command = app.add_subcommand("check-claim", "Is this tokens/s figure physically possible, and under what conditions?");
    command->add_option("--hardware", options.hardware, "Hardware id or profile path")->required();
    command->add_option("--model", options.model, "Model id, profile path or config.json")->required();
    command->add_option("--weights", options.weights, "Weight format the claim states (default bf16; unstated lets lower precision explain it)");
    command->add_option("--kv", options.kv, "KV-cache format");
    command->add_option("--tokens-per-s", options.tokens_per_s, "The claimed tokens per second")
        ->required()
        ->check(CLI::Range(1e-6, 1e12));
    command->add_option("--per", options.per, "Whether the claim is per stream or the total")
        ->required()
        ->check(CLI::IsMember({"stream", "total"}));
    command->add_option("--batch", options.batch, "Stated concurrency")->check(CLI::Range(1LL, kMaxBatch));
    auto* context = command->add_option("--context", options.context, "Stated context")->check(CLI::Range(1LL, kMaxTokens));
    auto* prompt = command->add_option("--prompt", options.prompt, "Stated prompt length")->check(CLI::Range(1LL, kMaxTokens));
    auto* output = command->add_option("--output", options.output, "Stated output length")->check(CLI::Range(1LL, kMaxTokens));
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command->add_option("--tp", options.tensor_parallel, "Tensor-parallel degree")->check(CLI::Range(1, kMaxTensorParallel));
    command->add_flag("--json", options.json, "Print one JSON object");
    return command;
}

int run_check_claim(const CheckClaimOptions& options, const profiles::Catalog& catalog, Io io) {
    const OperatingPoint point = resolve_operating_point(catalog, options.hardware, options.model,
                                                         options.weights.value_or("bf16"), options.kv,
                                                         options.tensor_parallel, "vllm", io);
    scenarios::Claim claim;
    claim.tokens_per_s = options.tokens_per_s;
    claim.per_stream = options.per == "stream";
    if (options.batch) claim.batch = static_cast<double>(*options.batch);
    if (options.context) claim.context = static_cast<double>(*options.context);
    if (options.prompt) {
        claim.prompt = static_cast<double>(*options.prompt);
        claim.output = static_cast<double>(*options.output);
    }
    claim.weights_stated = options.weights.has_value();
    const scenarios::ClaimCheck check = scenarios::check_claim(point.model, point.hardware, point.deployment, claim);
    const report::Conditions conditions = conditions_of(point);
    if (options.json) {
        io.out << report::claim_to_json(conditions, claim, check).dump(2) << "\n";
    } else {
        io.out << report::claim_to_text(conditions, claim, check);
    }
    switch (check.verdict) {
        case scenarios::Verdict::impossible: return kClaimImpossible;
        case scenarios::Verdict::needs_conditions: return kClaimNeedsConditions;
        default: return 0;
    }
}

}  // namespace decodesim::cli
