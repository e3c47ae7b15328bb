#include "report/serving/launch_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "core/registry.hpp"

namespace decodesim::report {

namespace {

// A whole number of requests the load generator sends: the plan's verification count, at least
// enough for a p99 (100) and a minute of the planned rate.
long long request_count(const PlannedLoad& load) {
    const double per_minute = load.rate_per_s ? *load.rate_per_s * 60.0 : (load.users ? *load.users * 10.0 : 100.0);
    return std::max(1000LL, static_cast<long long>(std::ceil(per_minute)));
}

// The load of `vllm bench serve` and `sglang.bench_serving` alike: a concurrency or a rate, and a
// request count (the `${load}` of a launch template's verify command).
std::string load_flags(const PlannedLoad& load) {
    std::string flags;
    if (load.users) {
        flags += fmt::format("--max-concurrency {:.0f} --request-rate inf ", *load.users);
    } else if (load.rate_per_s) {
        flags += fmt::format("--request-rate {:g} ", *load.rate_per_s);
    }
    return flags + fmt::format("--num-prompts {}", request_count(load));
}

}  // namespace

std::vector<std::string> shell_words(const std::string& line) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (const char c : line) {
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
            } else {
                word += c;
            }
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

std::string yaml_string_list(const std::vector<std::string>& words) {
    std::string list = "[";
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) list += ", ";
        list += '"';
        for (const char c : words[i]) {
            if (c == '"' || c == '\\') list += '\\';
            list += c;
        }
        list += '"';
    }
    return list + "]";
}

std::optional<std::string> hugging_face_repo(const std::string& source) {
    static const std::regex repo(R"(huggingface\.co/([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9][A-Za-z0-9._-]*))");
    std::smatch found;
    if (!std::regex_search(source, found, repo)) return std::nullopt;
    const std::string org = found[1].str();
    if (org == "datasets" || org == "spaces" || org == "docs") return std::nullopt;
    return org + "/" + found[2].str();
}

std::optional<LaunchCommand> launch_command(const serving::PlanOption& option, const std::string& model,
                                            const PlannedLoad& load, const std::string& orchestrator) {
    const engine::Deployment& d = option.deployment;
    const auto& template_ = d.runtime_profile().launch;
    if (!template_) return std::nullopt;
    const profiles::Orchestrator* under = nullptr;
    if (!orchestrator.empty()) {
        under = core::find_named(template_->orchestrators, orchestrator);
        if (under == nullptr) return std::nullopt;
    }
    const engine::Parallelism& p = d.parallelism;
    const std::string weights(d.weights->name);
    const std::string kv(d.kv->name);
    const serving::SchedulerLimits& limits = option.limits;
    // Weight formats a flag quantizes at load time; the others need a checkpoint already in them.
    const bool online_fp8 = weights == "fp8";
    auto holds = [&](profiles::LaunchCondition when) {
        switch (when) {
            case profiles::LaunchCondition::always: return true;
            case profiles::LaunchCondition::tensor_parallel: return p.tensor > 1;
            case profiles::LaunchCondition::pipeline_parallel: return p.pipeline > 1;
            case profiles::LaunchCondition::attention_data: return p.attention_data > 1;
            case profiles::LaunchCondition::expert_parallel: return p.expert > 1;
            case profiles::LaunchCondition::fp8_weights: return online_fp8;
            case profiles::LaunchCondition::fp8_kv: return kv == "fp8";
            case profiles::LaunchCondition::fp8_any: return online_fp8 || kv == "fp8";
            case profiles::LaunchCondition::no_prefix_caching: return !limits.prefix_caching;
            case profiles::LaunchCondition::chunked_prefill: return limits.chunked_prefill;
            case profiles::LaunchCondition::no_chunked_prefill: return !limits.chunked_prefill;
            case profiles::LaunchCondition::incremental_admission: return !limits.reserve_whole_request;
            case profiles::LaunchCondition::whole_request_admission: return limits.reserve_whole_request;
            case profiles::LaunchCondition::disaggregated: return option.disaggregated.has_value();
            case profiles::LaunchCondition::closed_loop: return load.users.has_value();
            case profiles::LaunchCondition::open_loop: return !load.users.has_value();
            case profiles::LaunchCondition::bursty: return !load.users.has_value() && load.burstiness.has_value();
            case profiles::LaunchCondition::graphs_off: return d.eager.decode && !d.runtime_profile().eager.decode;
            case profiles::LaunchCondition::api_servers: return d.api_servers > 1;
        }
        return false;
    };
    std::map<std::string, std::string> values{
        {"model", model},
        {"tp", std::to_string(p.tensor)},
        {"stage_devices", std::to_string(p.stage_devices())},
        {"pp", std::to_string(p.pipeline)},
        {"dp", std::to_string(p.attention_data)},
        {"ep", std::to_string(p.expert)},
        // A launch flag is one scheduler's: a vLLM data-parallel rank's share of the stage's limits.
        {"max_sequences", std::to_string(limits.max_sequences / std::max(1, limits.schedulers))},
        {"max_batched_tokens", std::to_string(limits.max_batched_tokens / std::max(1, limits.schedulers))},
        {"weights", weights},
        {"total_context", fmt::format("{:.0f}", static_cast<double>(limits.max_sequences) *
                                                    (load.prompt_tokens + load.output_tokens))},
        {"prompt", fmt::format("{:.0f}", load.prompt_tokens)},
        {"output", fmt::format("{:.0f}", load.output_tokens)},
        {"load", load_flags(load)},
        {"users", load.users ? fmt::format("{:.0f}", *load.users) : std::string()},
        {"rate", load.rate_per_s ? fmt::format("{:g}", *load.rate_per_s) : std::string()},
        {"requests", std::to_string(request_count(load))},
        {"burstiness", load.burstiness ? fmt::format("{:g}", *load.burstiness) : std::string("1")},
        {"replicas", std::to_string(option.disaggregated ? option.disaggregated->pools.decode_instances : option.replicas)},
        {"prefill_replicas", std::to_string(option.disaggregated ? option.disaggregated->pools.prefill_instances : 0)},
        {"disaggregated", option.disaggregated ? "true" : "false"},
        {"api_servers", std::to_string(d.api_servers)},
        {"devices", std::to_string(p.devices())},
    };
    // Every ${name} replaced by its value (the loader admits only names in kLaunchPlaceholders).
    auto fill = [&values](const std::string& text) {
        return profiles::fill_placeholders(text, [&values](std::string_view name) -> std::optional<std::string> {
            const auto value = values.find(std::string(name));
            if (value == values.end()) return std::nullopt;
            return value->second;
        });
    };

    LaunchCommand launch;
    const int instances = option.disaggregated
                              ? option.disaggregated->pools.prefill_instances + option.disaggregated->pools.decode_instances
                              : option.replicas;
    if (instances > 1) {
        launch.notes.push_back(fmt::format("{} instances of this command, each on its own {} device{}, behind {}", instances,
                                           p.devices(), p.devices() == 1 ? "" : "s",
                                           under ? "the front end"
                                                 : "a router that sends each request to the instance with the fewest "
                                                   "outstanding"));
    }
    if (option.disaggregated) {
        launch.notes.push_back(fmt::format("disaggregated: {} of them prefill{} and {} decode, the KV cache sent between them",
                                           option.disaggregated->pools.prefill_instances,
                                           option.disaggregated->prefill_hardware.empty()
                                               ? std::string()
                                               : " on " + option.disaggregated->prefill_hardware,
                                           option.disaggregated->pools.decode_instances));
    }
    if (weights != "bf16" && weights != "fp16" && !online_fp8) {
        launch.notes.push_back(fmt::format("weights {}: serve a checkpoint already quantized so (its config.json says "
                                           "which); the command takes the format from it",
                                           weights));
    }
    // Under an orchestrator its worker command heads the engine's flags, and its roles, front end
    // and load generator stand in for the engine's.
    std::string engine_flags;
    for (const profiles::LaunchPiece& flag : template_->flags) {
        if (holds(flag.when)) engine_flags += " " + fill(flag.text);
    }
    // The engine's flags as an argument list, less those an orchestrator's file sets from its own
    // keys (each with its value, unless written --flag=value).
    std::vector<std::string> args;
    const std::vector<std::string> words = shell_words(engine_flags);
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (under && std::find(under->sets_flags.begin(), under->sets_flags.end(), words[i]) != under->sets_flags.end()) {
            if (i + 1 < words.size() && !words[i + 1].starts_with("--")) ++i;
            continue;
        }
        args.push_back(words[i]);
    }
    values["engine_args"] = yaml_string_list(args);
    if (under && !under->manifest.empty()) {
        // A deployment file, the flags its argument list: it states the instances and roles
        // itself, so only a note on the checkpoint stays.
        std::erase_if(launch.notes, [](const std::string& note) { return !note.starts_with("weights "); });
        launch.manifest = fill(under->manifest);
        launch.manifest_file = under->manifest_file;
        launch.install = fill(under->install);
    } else {
        launch.serve = fill(under ? under->serve : template_->serve) + engine_flags;
        const std::string& prefill_role = under ? under->prefill_role : template_->prefill_role;
        const std::string& decode_role = under ? under->decode_role : template_->decode_role;
        if (option.disaggregated) {
            launch.serve_decode = launch.serve;
            if (!decode_role.empty()) *launch.serve_decode += " " + fill(decode_role);
            if (!prefill_role.empty()) launch.serve += " " + fill(prefill_role);
            if (!template_->router.empty()) launch.router = fill(template_->router);
        }
    }
    if (under) launch.router = fill(under->router);
    launch.verify = fill(under ? under->verify : template_->verify);
    bool sends_burstiness = false;
    for (const profiles::LaunchPiece& flag : under ? under->verify_flags : template_->verify_flags) {
        if (!holds(flag.when)) continue;
        launch.verify += " " + fill(flag.text);
        sends_burstiness = sends_burstiness || flag.when == profiles::LaunchCondition::bursty;
    }
    // After the instances' notes, which a deployment file drops: whatever deploys it, the check
    // is the load generator's.
    std::vector<std::string> not_replayed = load.not_replayed;
    if (holds(profiles::LaunchCondition::bursty) && !sends_burstiness) {
        not_replayed.push_back(fmt::format("gamma (burstiness {:g}) arrivals, sent as Poisson", *load.burstiness));
    }
    if (!not_replayed.empty()) {
        launch.notes.push_back(fmt::format("the check sends a simpler load than the plan's: {}; its figures are that "
                                           "load's, to compare with `decodesim serve` under it, not with the plan's",
                                           fmt::join(not_replayed, "; ")));
    }
    for (const profiles::LaunchPiece& note : under ? under->notes : template_->notes) {
        if (holds(note.when)) launch.notes.push_back(fill(note.text));
    }
    return launch;
}

}  // namespace decodesim::report
