#include "cli/point_options.hpp"

#include "core/text_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/runtime_option.hpp"
#include "cli/usage_checks.hpp"
#include "core/units.hpp"
#include "core/registry.hpp"
#include "engine/efficiency.hpp"
#include "engine/memory.hpp"
#include "engine/model_shape.hpp"
#include "engine/point_warnings.hpp"
#include "engine/prediction.hpp"
#include "engine/speculative.hpp"

namespace decodesim::cli {

namespace {

// The workload the flags name, before --prefix-tokens.
engine::Workload unshared_workload(const WorkloadOptions& options, std::optional<std::int64_t> max_context) {
    const auto& prompt = options.prompt;
    const auto& output = options.output;
    const auto& context = options.context;
    const auto& scenario = options.scenario;
    const long long batch = options.batch;
    if (prompt) {
        return engine::Workload::request(static_cast<double>(batch), static_cast<double>(*prompt),
                                         static_cast<double>(output.value_or(1)));
    }
    if (!context && scenario) {
        // One request of the scenario's mean shape (the drawn lengths' means, whole tokens).
        const workload::WorkloadScenario& named = workload::workload_scenario_named(*scenario);
        const double out = std::max(1.0, std::round(named.output.mean()));
        double in = std::max(1.0, std::round(named.prompt.mean()));
        if (max_context) in = std::max(1.0, std::min(in, static_cast<double>(*max_context) - out));
        return engine::Workload::request(static_cast<double>(batch), in, out);
    }
    return engine::Workload::step(static_cast<double>(batch), static_cast<double>(context.value_or(kDefaultContext)));
}

// The acceptance a stated --accept-length means at the run's --spec-length.
double acceptance_of(const DeploymentOptions& options) {
    const double tokens = options.accept_length.value_or(1.0);
    const auto acceptance = engine::acceptance_for_tokens_per_verification(options.spec_length, tokens);
    if (!acceptance) {
        throw core::UsageError(fmt::format("accept_length (--accept-length) = {}: a verification step of {} draft {} "
                                           "yields 1 to {} tokens",
                                           tokens, options.spec_length, options.spec_length == 1 ? "token" : "tokens",
                                           options.spec_length + 1));
    }
    return *acceptance;
}

}  // namespace

engine::Workload WorkloadOptions::workload(std::optional<std::int64_t> max_context) const {
    engine::Workload workload = unshared_workload(*this, max_context);
    if (shared_prefix > 0) {
        if (static_cast<double>(shared_prefix) >= workload.prompt_tokens()) {
            throw core::UsageError(fmt::format("--prefix-tokens {} must be shorter than the prompt ({:.0f} tokens): at "
                                               "least one token of it is computed",
                                               shared_prefix, workload.prompt_tokens()));
        }
        workload.shared_prefix = static_cast<double>(shared_prefix);
    }
    return workload;
}


engine::Workload WorkloadOptions::with_images(engine::Workload workload, const profiles::ModelProfile& model) const {
    if (images == 0) return workload;
    if (!model.vision) {
        throw core::UsageError(fmt::format("--images: {} has no vision encoder (its profile has no vision block; "
                                           "docs/profiles.md)",
                                           model.id));
    }
    return engine::with_images(workload, model, static_cast<double>(images),
                               image_size ? static_cast<double>(*image_size) : 0.0);
}

const workload::WorkloadScenario* WorkloadOptions::named_scenario() const {
    return scenario ? &workload::workload_scenario_named(*scenario) : nullptr;
}

report::Conditions point_conditions(const engine::OperatingPoint& point, const WorkloadOptions& workload) {
    report::Conditions conditions = report::conditions_of(point);
    conditions.scenario = workload.named_scenario();
    return conditions;
}

void add_deployment_options(CLI::App& command, DeploymentOptions& options) {
    command.add_option("--hardware", options.hardware, help::kHardware)->required();
    command.add_option("--model", options.model, help::kModel)->required();
    command.add_option("--weights", options.weights, help::kWeights);
    command.add_option("--kv", options.kv, help::kKv);
    command.add_option("--activation", options.activation, help::kActivation);
    command.add_option("--runtime", options.runtime, help::kRuntime);
    command.add_option("--backend", options.backend, help::kBackend);
    command.add_option("--tp", options.tensor_parallel, help::kTensorParallel)
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxTensorParallel));
    command.add_option("--pp", options.pipeline_parallel, help::kPipelineParallel)
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxTensorParallel));
    command.add_option("--ep", options.expert_parallel, help::kExpertParallel)
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxTensorParallel));
    command.add_option("--dp-attention", options.attention_data, help::kAttentionData)
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxTensorParallel));
    command.add_flag("--kv-offload", options.kv_offload, help::kKvOffload);
    command.add_option("--cuda-graphs", options.cuda_graphs, help::kCudaGraphs)
        ->capture_default_str()
        ->check(CLI::IsMember({"on", "off"}));
    auto* draft = command.add_option("--draft", options.draft, help::kDraft);
    command.add_option("--spec-length", options.spec_length, help::kSpecLength)
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxSpecLength))
        ->needs(draft);
    auto* acceptance =
        command.add_option("--acceptance", options.acceptance, help::kAcceptance)->check(number_in(0.0, 1.0))->needs(draft);
    command.add_option("--accept-length", options.accept_length, help::kAcceptLength)
        ->check(number_in(1.0, kMaxSpecLength + 1.0))
        ->needs(draft)
        ->excludes(acceptance);
    command.add_option("--clocks", options.clocks, help::kClocks)->capture_default_str();
    command.add_option("--power-limit", options.power_limit_watts, help::kPowerLimit)
        ->check(number_in(1e-3, kMaxPowerLimitWatts));
}

void add_workload_options(CLI::App& command, WorkloadOptions& options) {
    command.add_option("--batch", options.batch, help::kBatch)->capture_default_str()->check(CLI::Range(1LL, kMaxBatch));
    auto* context = command.add_option("--context", options.context, help::kContext)->check(CLI::Range(1LL, kMaxTokens));
    auto* prompt = command.add_option("--prompt", options.prompt, help::kPrompt)->check(CLI::Range(1LL, kMaxTokens));
    auto* output = command.add_option("--output", options.output, help::kOutput)->check(CLI::Range(1LL, kMaxTokens));
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command.add_option("--scenario", options.scenario, help::kScenario);
    command.add_option("--prefix-tokens", options.shared_prefix, help::kSharedPrefix)
        ->check(CLI::Range(0LL, kMaxTokens));
    auto* images = command.add_option("--images", options.images,
                                      "Images in each prompt, for a vision-language model: their tokens join the "
                                      "prompt and the vision encoder's pass adds to the first token (docs/model.md)")
                       ->check(CLI::Range(0LL, 1024LL));
    command.add_option("--image-size", options.image_size,
                       "Pixels a side of each image (default: the model's vision encoder's image_size)")
        ->check(CLI::Range(1LL, 65536LL))
        ->needs(images);
}

void add_point_options(CLI::App& command, PointOptions& options) {
    add_deployment_options(command, options.deployment);
    add_workload_options(command, options.workload);
}

std::pair<std::string, std::optional<int>> hardware_with_devices(const std::string& item, const std::string& flag) {
    const auto colon = item.rfind(':');
    if (colon == std::string::npos) return {item, std::nullopt};
    double devices = 0.0;
    if (!core::parse_number(item.substr(colon + 1), devices) || devices < 1 || devices > kMaxTensorParallel ||
        devices != static_cast<int>(devices)) {
        throw core::UsageError(fmt::format("{}: '{}' should be ID or ID:DEVICES with a whole number of devices", flag, item));
    }
    return {item.substr(0, colon), static_cast<int>(devices)};
}

const core::WeightFormat& weight_format_named(const std::string& name) {
    return core::named_or_throw(core::weight_formats(), name, "--weights", "format");
}

const core::KvFormat& kv_format_named(const std::string& name) {
    return core::named_or_throw(core::kv_formats(), name, "--kv", "format");
}

// One allowed name of a flag and the engine value it stands for.
template <typename Value>
struct NamedValue {
    std::string_view name;
    Value value;
};

core::Datatype activation_named(const std::string& name) {
    // Activations are computed in a floating-point type a matrix unit accepts as input.
    static constexpr std::array kActivations{NamedValue<core::Datatype>{"bf16", core::Datatype::bf16},
                                             NamedValue<core::Datatype>{"fp16", core::Datatype::fp16},
                                             NamedValue<core::Datatype>{"fp32", core::Datatype::fp32}};
    return core::named_or_throw(kActivations, name, "--activation", "activation datatype").value;
}

engine::ClockCondition clock_condition_named(const std::string& name) {
    using Condition = engine::ClockCondition;
    static constexpr std::array kConditions{NamedValue<Condition>{"sustained", Condition::sustained},
                                            NamedValue<Condition>{"peak", Condition::peak}};
    return core::named_or_throw(kConditions, name, "--clocks", "clock condition").value;
}

engine::ClockChoice clock_choice(const std::string& clocks, std::optional<double> power_limit_watts) {
    engine::ClockChoice choice;
    choice.condition = clock_condition_named(clocks);
    if (power_limit_watts) {
        if (choice.condition == engine::ClockCondition::peak) {
            throw core::UsageError("--power-limit sets the sustained clock; it cannot be combined with --clocks peak");
        }
        choice.power_limit = core::Watts(*power_limit_watts);
    }
    return choice;
}

engine::DeploymentChoice deployment_choice(const profiles::Catalog& catalog, const DeploymentOptions& options,
                                           const profiles::HardwareProfile& hardware) {
    engine::DeploymentChoice choice;
    if (options.weights) choice.weights = &weight_format_named(*options.weights);
    if (options.kv) choice.kv = &kv_format_named(*options.kv);
    if (options.activation) choice.activation = activation_named(*options.activation);
    choice.runtime = runtime_for(catalog, options.runtime, hardware);
    if (options.backend) choice.backend = core::named_or_throw(core::kBackends, *options.backend, "--backend", "backend").backend;
    choice.parallelism.tensor = options.tensor_parallel;
    choice.parallelism.pipeline = options.pipeline_parallel;
    choice.parallelism.expert = options.expert_parallel;
    choice.parallelism.attention_data = options.attention_data;
    choice.kv_offload = options.kv_offload;
    choice.in_process = options.in_process;
    choice.api_servers = options.api_servers;
    choice.cuda_graphs_off = options.cuda_graphs == "off";
    if (options.draft) {
        if (!options.acceptance && !options.accept_length) {
            throw core::UsageError("--draft needs --acceptance: the chance each draft token is accepted (0 to 1; "
                                   "published rates are 0.6 to 0.8 for a same-family draft, docs/model.md), or "
                                   "--accept-length: the mean tokens a verification step yields, as serving logs print it");
        }
        choice.speculation.length = options.spec_length;
        choice.speculation.acceptance = options.acceptance ? *options.acceptance : acceptance_of(options);
        choice.speculation.multi_token_heads = *options.draft == "mtp";
    }
    choice.clocks = clock_choice(options.clocks, options.power_limit_watts);
    return choice;
}

namespace {

void warn_about_point(Io io, const engine::OperatingPoint& point) {
    for (const auto& warning : engine::point_warnings(point)) warn(io, warning);
}

// `hardware` and `model` are loaded already (from options.hardware and options.model, which the
// log names).
engine::OperatingPoint resolve_loaded_quietly(const profiles::Catalog& catalog, profiles::HardwareProfile hardware,
                                              profiles::ModelProfile model, const DeploymentOptions& options,
                                              const engine::Workload& workload, Io io) {
    const engine::DeploymentChoice choice = deployment_choice(catalog, options, hardware);
    engine::OperatingPoint point =
        engine::resolve_operating_point(std::move(hardware), std::move(model), choice, workload,
                                        options.draft && *options.draft != "mtp"
                                            ? std::optional<profiles::ModelProfile>(catalog.model(*options.draft))
                                            : std::nullopt);
    if (io.log != nullptr) {
        const engine::Deployment& deployment = point.deployment;
        const engine::Efficiency efficiency = engine::deployment_efficiency(point.hardware, deployment);
        io.log->info("hardware {} from {}", point.hardware.id, catalog.hardware_path(options.hardware));
        io.log->info("model {} from {}", point.model.id, catalog.model_path(options.model));
        if (point.model.checkpoint_bits_per_weight) {
            io.log->info("checkpoint files: {} weights in {}, {} bits per weight",
                         point.model.checkpoint_parameters ? core::format_count(*point.model.checkpoint_parameters) : "?",
                         point.model.checkpoint_bytes ? core::format_bytes(*point.model.checkpoint_bytes) : "?",
                         core::format_significant(*point.model.checkpoint_bits_per_weight));
        }
        io.log->info("weights {} ({:.4g} bits base), KV {}, activations {}, tp {}, runtime {}", deployment.weights->name,
                     deployment.weights->bits_per_weight, deployment.kv->name,
                     core::datatype_name(deployment.activation), deployment.parallelism.tensor,
                     engine::runtime_label(deployment));
        io.log->info("efficiency: bandwidth {:.3f}, compute {:.3f}, kernel overhead {}, usable memory {:.2f}",
                     efficiency.memory_bandwidth, efficiency.compute, efficiency.kernel_overhead,
                     engine::usable_memory_fraction(point.hardware, deployment.runtime_profile().kv_sizing));
        io.log->info("clocks {}: compute at {:.3f} of the listed peaks, memory at {:.3f}",
                     engine::clock_label(deployment.clocks), deployment.clocks.compute_share,
                     deployment.clocks.memory_share);
    }
    return point;
}


}  // namespace

engine::OperatingPoint resolve_point_quietly(const profiles::Catalog& catalog, const DeploymentOptions& options,
                                             const engine::Workload& workload, Io io) {
    if (options.runtime) runtime_named(catalog, *options.runtime);  // names first: cheap, and usage errors
    profiles::HardwareProfile hardware = catalog.hardware(options.hardware);
    return resolve_loaded_quietly(catalog, std::move(hardware), catalog.model(options.model), options, workload, io);
}

engine::OperatingPoint resolve_point(const profiles::Catalog& catalog, const DeploymentOptions& options,
                                     const engine::Workload& workload, Io io) {
    engine::OperatingPoint point = resolve_point_quietly(catalog, options, workload, io);
    warn_about_point(io, point);
    return point;
}

engine::OperatingPoint resolve_point(const profiles::Catalog& catalog, profiles::HardwareProfile hardware,
                                     profiles::ModelProfile model, const DeploymentOptions& options,
                                     const engine::Workload& workload, Io io) {
    if (options.runtime) runtime_named(catalog, *options.runtime);
    engine::OperatingPoint point =
        resolve_loaded_quietly(catalog, std::move(hardware), std::move(model), options, workload, io);
    warn_about_point(io, point);
    return point;
}

engine::OperatingPoint resolve_point(const profiles::Catalog& catalog, const PointOptions& options, Io io) {
    engine::OperatingPoint point = resolve_point_quietly(catalog, options.deployment, options.workload.workload(), io);
    // A scenario's mean prompt may be longer than this model's context (agent traces come from
    // frontier models): truncated so that the request fits, as agent frameworks compact context.
    if (options.workload.scenario && point.model.max_position_embeddings) {
        point.workload = options.workload.workload(*point.model.max_position_embeddings);
    }
    point.workload = options.workload.with_images(point.workload, point.model);
    warn_about_point(io, point);
    return point;
}

namespace {

// A UsageError unless `value` lies in [low, high]; `name` is the flag without its dashes, as the
// Python module's keyword spells it too.
template <typename Number>
void check_limit(std::string_view name, Number value, Number low, Number high) {
    if (value >= low && value <= high) return;
    throw core::UsageError(fmt::format("{} = {} is outside {} to {} (--{})", name, value, low, high, name));
}

}  // namespace

void check_option_limits(const DeploymentOptions& deployment) {
    check_limit("tp", deployment.tensor_parallel, 1, kMaxTensorParallel);
    check_limit("pp", deployment.pipeline_parallel, 1, kMaxTensorParallel);
    check_limit("ep", deployment.expert_parallel, 1, kMaxTensorParallel);
    check_limit("dp_attention", deployment.attention_data, 1, kMaxTensorParallel);
    check_limit("spec_length", deployment.spec_length, 1, kMaxSpecLength);
    if (deployment.acceptance) check_limit("acceptance", *deployment.acceptance, 0.0, 1.0);
    if (deployment.power_limit_watts) check_limit("power_limit", *deployment.power_limit_watts, 1e-3, kMaxPowerLimitWatts);
    if (deployment.cuda_graphs != "on" && deployment.cuda_graphs != "off") {
        throw core::UsageError("cuda_graphs (--cuda-graphs): expected on or off, not '" + deployment.cuda_graphs + "'");
    }
    if (!deployment.draft && deployment.acceptance) throw core::UsageError("acceptance (--acceptance) needs draft (--draft)");
    if (deployment.accept_length) {
        if (!deployment.draft) throw core::UsageError("accept_length (--accept-length) needs draft (--draft)");
        if (deployment.acceptance) {
            throw core::UsageError("acceptance (--acceptance) and accept_length (--accept-length) state the same thing: give one");
        }
        acceptance_of(deployment);
    }
}

void check_option_limits(const WorkloadOptions& workload) {
    check_limit("batch", workload.batch, 1LL, kMaxBatch);
    if (workload.context) check_limit("context", *workload.context, 1LL, kMaxTokens);
    if (workload.prompt) check_limit("prompt", *workload.prompt, 1LL, kMaxTokens);
    if (workload.output) check_limit("output", *workload.output, 1LL, kMaxTokens);
    check_limit("prefix_tokens", workload.shared_prefix, 0LL, kMaxTokens);
    check_limit("images", workload.images, 0LL, 1024LL);
    if (workload.image_size) check_limit("image_size", *workload.image_size, 1LL, 65536LL);
    if (workload.prompt.has_value() != workload.output.has_value()) {
        throw core::UsageError("prompt (--prompt) and output (--output) go together: a request has both");
    }
    if (workload.context && workload.prompt) {
        throw core::UsageError("context (--context) excludes prompt and output (--prompt, --output): one step or a request");
    }
    if (workload.image_size && workload.images == 0) throw core::UsageError("image_size (--image-size) needs images (--images)");
    if (workload.scenario) workload.named_scenario();  // an unknown name: its UsageError with "did you mean"
}

engine::MemoryFootprint one_stream_memory(const engine::OperatingPoint& point) {
    engine::Workload one = point.workload;
    one.batch = 1.0;
    return engine::Evaluator(point).predict(one, engine::Detail::figures).memory;
}

void warn_if_no_stream_fits(Io io, const engine::OperatingPoint& point) {
    if (auto problem = engine::memory_problem(one_stream_memory(point), 1.0)) warn(io, *problem);
}

void warn_beyond_context(Io io, const profiles::ModelProfile& model, double context_tokens) {
    if (auto warning = engine::context_warning(model, context_tokens)) warn(io, *warning);
}

void warn(Io io, const std::string& raw_message) {
    const std::string message = core::printable(raw_message);  // one line, whatever names it quotes
    if (io.warned != nullptr && !io.warned->insert(message).second) return;  // given once per run
    if (io.log != nullptr) {
        io.log->warn("{}", message);
    } else {
        io.err << "decodesim: warning: " << message << "\n";
    }
}

}  // namespace decodesim::cli
