#include "report/explore/claim_output.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

std::string claim_to_text(const Conditions& conditions, const explore::Claim& claim, const explore::ClaimCheck& check) {
    std::string text = fmt::format("Claim: {:g} tokens/s {} for {} ({} weights) on {}.\n", claim.tokens_per_s,
                                   explore::claim_kind(claim), conditions.model, conditions.weights, conditions.hardware);
    text += fmt::format("Verdict: {}.\n", explore::verdict_name(check.verdict));
    switch (check.verdict) {
        case explore::Verdict::impossible:
            if (!check.fits && check.speedup_needed <= 1.0) {
                text += fmt::format("Within the physical bound of {:.4g} tokens/s {}, but the workload fits on no deployment "
                                    "of this device up to {} devices, in this format or a narrower one.\n",
                                    check.bound_tokens_per_s, explore::claim_kind(claim), explore::kMaxClaimDevices);
                break;
            }
            text += fmt::format(
                "Physics allows at most {:.4g} tokens/s {} under these conditions; the claim is {:.1f}x that, and no "
                "usual hidden condition (batching, a shorter context, lower precision, speculative decoding), alone or "
                "with a narrower format, explains it.\n",
                check.bound_tokens_per_s, explore::claim_kind(claim), check.speedup_needed);
            break;
        case explore::Verdict::needs_conditions:
            if (check.speedup_needed <= 1.0) {
                text += fmt::format("Within the physical bound of {:.4g} tokens/s {}, but only on a deployment that holds "
                                    "the workload, which the stated one does not:\n",
                                    check.bound_tokens_per_s, explore::claim_kind(claim));
                break;
            }
            text += fmt::format(
                "Under the stated conditions physics allows at most {:.4g} tokens/s {} ({:.1f}x short). It becomes "
                "possible with:\n",
                check.bound_tokens_per_s, explore::claim_kind(claim), check.speedup_needed);
            break;
        case explore::Verdict::plausible:
            text += fmt::format("It is within the physical bound of {:.4g} tokens/s {}; decodesim predicts {:.4g}.\n",
                                check.bound_tokens_per_s, explore::claim_kind(claim), check.predicted_tokens_per_s);
            break;
        case explore::Verdict::conservative:
            text += fmt::format("decodesim predicts {:.4g} tokens/s {}: the hardware should do better than claimed.\n",
                                check.predicted_tokens_per_s, explore::claim_kind(claim));
            break;
    }
    for (const auto& note : check.notes) text += fmt::format("  - {}\n", note);
    TextTable table({"", "value"});
    table.add_row({"claimed tokens/s", core::format_si(claim.tokens_per_s) + " " + explore::claim_kind(claim)});
    table.add_row({"roofline bound", core::format_si(check.bound_tokens_per_s)});
    table.add_row({fmt::format("predicted ({} clocks)", conditions.clocks), core::format_si(check.predicted_tokens_per_s)});
    table.add_row({"predicted at peak clocks", core::format_si(check.predicted_at_peak_tokens_per_s)});
    if (check.time_to_last_token) table.add_row({"time to last token (predicted)", core::format(*check.time_to_last_token)});
    if (!claim.prefill) {
        table.add_row({"implied bandwidth utilization", fmt::format("{:.0f}% of peak", check.implied_bandwidth_utilization * 100)});
    }
    table.add_row({"evaluated at", fmt::format("batch {:.0f}, {} {:.0f}", check.batch, claim.prefill ? "prompt" : "context",
                                               check.context)});
    text += "\n";
    text += table.render();
    return text;
}

nlohmann::json claim_to_json(const Conditions& conditions, const explore::Claim& claim,
                             const explore::ClaimCheck& check) {
    nlohmann::json document = document_for(conditions);
    document["weights"] = conditions.weights;
    document["claimed_tokens_per_s"] = claim.tokens_per_s;
    document["per"] = claim.prefill ? "prefill" : claim.per_stream ? "stream" : "total";
    document["timed"] = claim.whole_run ? "run" : "decode";
    document["verdict"] = explore::verdict_name(check.verdict);
    document["bound_tokens_per_s"] = check.bound_tokens_per_s;
    document["predicted_tokens_per_s"] = check.predicted_tokens_per_s;
    document["implied_bandwidth_utilization"] = check.implied_bandwidth_utilization;
    document["speedup_needed"] = check.speedup_needed;
    document["evaluated_batch"] = check.batch;
    document["evaluated_context_tokens"] = check.context;
    if (check.min_batch) {
        document["min_batch"] = *check.min_batch;
        document["min_batch_fits"] = check.min_batch_fits.value_or(false);
    }
    if (check.max_context) document["max_context_tokens"] = *check.max_context;
    document["fits"] = check.fits;
    document["devices_to_fit"] = check.devices_to_fit ? nlohmann::json(*check.devices_to_fit) : nlohmann::json(nullptr);
    document["weights_to_fit"] = check.weights_to_fit ? nlohmann::json(*check.weights_to_fit) : nlohmann::json(nullptr);
    if (check.precision_needed) document["precision_needed"] = *check.precision_needed;
    document["speculative_decoding_could_explain"] = check.speculative_decoding_could_explain;
    if (check.acceptance_needed) {
        document["speculation_needed"] = {{"draft_length", check.speculation_length.value_or(0)},
                                          {"acceptance", *check.acceptance_needed}};
    }
    document["combination"] = check.combination;
    document["predicted_at_peak_clocks_tokens_per_s"] = check.predicted_at_peak_tokens_per_s;
    document["needs_peak_clocks"] = check.needs_peak_clocks;
    document["time_to_last_token_s"] =
        check.time_to_last_token ? nlohmann::json(check.time_to_last_token->value) : nlohmann::json(nullptr);
    document["notes"] = check.notes;
    return document;
}

}  // namespace decodesim::report
