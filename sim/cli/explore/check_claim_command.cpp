// `decodesim check-claim`: a vendor's tokens/s against what physics allows.

#include <memory>
#include <optional>
#include <string>

#include "cli/usage_checks.hpp"
#include "cli/command.hpp"
#include "core/error.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/point_options.hpp"
#include "report/explore/claim_output.hpp"
#include "explore/claim_check.hpp"

namespace decodesim::cli {

namespace {

// Exit codes of check-claim beyond the common ones (docs/cli.md).
constexpr int kClaimImpossible = 4;
constexpr int kClaimNeedsConditions = 5;

struct CheckClaimOptions {
    DeploymentOptions deployment;  // an unset --weights lets lower precision explain the claim
    double tokens_per_s = 0.0;
    std::string per;
    // The conditions the claim states; unstated ones are searched.
    std::optional<long long> batch;
    std::optional<long long> context;
    std::optional<long long> prompt;
    std::optional<long long> output;
    std::string timed = "decode";
    bool json = false;
};

int run_check_claim(const CheckClaimOptions& options, const profiles::Catalog& catalog, Io io) {
    explore::Claim claim;
    claim.tokens_per_s = options.tokens_per_s;
    claim.per_stream = options.per == "stream";
    claim.prefill = options.per == "prefill";
    if (options.batch) claim.batch = static_cast<double>(*options.batch);
    if (options.context) claim.context = static_cast<double>(*options.context);
    if (options.prompt) {
        claim.prompt = static_cast<double>(*options.prompt);
        claim.output = static_cast<double>(*options.output);
    }
    claim.whole_run = options.timed == "run";
    if (claim.whole_run && (options.per != "total" || !options.prompt)) {
        throw core::UsageError("--timed run describes a total (--per total) over a stated request (--prompt and --output)");
    }
    claim.weights_stated = options.deployment.weights.has_value();
    const engine::OperatingPoint point =
        resolve_point(catalog, options.deployment, explore::stated_workload(claim), io);
    const explore::ClaimCheck check = explore::check_claim(point, claim);
    const report::Conditions conditions = report::conditions_of(point);
    if (options.json) {
        io.out << report::json_text(report::claim_to_json(conditions, claim, check));
    } else {
        io.out << report::wrap_text(report::claim_to_text(conditions, claim, check));
    }
    switch (check.verdict) {
        case explore::Verdict::impossible: return kClaimImpossible;
        case explore::Verdict::needs_conditions: return kClaimNeedsConditions;
        default: return 0;
    }
}

}  // namespace

void add_check_claim_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<CheckClaimOptions>();
    CLI::App* command =
        app.add_subcommand("check-claim", "Is this tokens/s figure physically possible, and under what conditions?");
    add_deployment_options(*command, options->deployment);
    command->get_option("--weights")
        ->description("Weight format the claim states (default bf16; unstated lets lower precision explain it)");
    command->add_option("--tokens-per-s", options->tokens_per_s, "The claimed tokens per second")
        ->required()
        ->check(number_in(1e-6, 1e12));
    command->add_option("--per", options->per,
                        "stream, total (decode tokens/s), or prefill (prompt tokens/s; the prompt is --context)")
        ->required()
        ->check(CLI::IsMember({"stream", "total", "prefill"}));
    command->add_option("--batch", options->batch, "Stated concurrency (unstated: searched)")->check(CLI::Range(1LL, kMaxBatch));
    auto* context = command->add_option("--context", options->context, "Stated context (unstated: searched from 1024)")
                        ->check(CLI::Range(1LL, kMaxTokens));
    auto* prompt = command->add_option("--prompt", options->prompt, help::kPrompt)->check(CLI::Range(1LL, kMaxTokens));
    auto* output = command->add_option("--output", options->output, help::kOutput)->check(CLI::Range(1LL, kMaxTokens));
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command->add_option("--timed", options->timed,
                        "decode (the decode passes' rate, default) or run (a static batch timed whole: batch x output "
                        "over its prefill and decode together; needs --per total, --prompt and --output)")
        ->check(CLI::IsMember({"decode", "run"}));
    command->add_flag("--json", options->json, "Print one JSON object");
    run_when_parsed(command, run, options, &run_check_claim);
}

}  // namespace decodesim::cli
