// The Python objects over the engine's types. Every name the user gives (a weight format, a runtime
// build, a scenario) goes through the command line's own resolver (cli::resolve_point and the
// option structs it reads), so an object means what the same flags mean, with the same defaults
// and messages; what differs is that the profiles are loaded and the deployment resolved once, and
// each prediction after that costs what the engine costs.

#include "python/engine_objects.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/point_options.hpp"
#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "engine/model_shape.hpp"
#include "engine/operating_point.hpp"
#include "engine/prediction.hpp"
#include "profiles/catalog.hpp"
#include "python/json_to_python.hpp"
#include "python/numpy_arrays.hpp"
#include "report/json_units.hpp"
#include "report/predict_json.hpp"

namespace py = pybind11;

namespace decodesim::python {

namespace {

std::string profile_root(const std::optional<std::string>& profiles_dir) {
    return profiles_dir && !profiles_dir->empty() ? *profiles_dir : profiles::default_profile_root();
}

// A profile as the user named it: what was given (an id or a path), the folder ids are looked up
// in, and the profile loaded from it.
template <typename Profile>
struct Named {
    std::string given;
    std::string root;
    Profile profile;
};
using HardwareObject = Named<profiles::HardwareProfile>;
using ModelObject = Named<profiles::ModelProfile>;
using RuntimeObject = Named<std::shared_ptr<const engine::RuntimeProfile>>;

// The deployment flags without --hardware and --model, which the Evaluator takes as objects.
struct DeploymentObject {
    cli::DeploymentOptions options;
};

struct WorkloadObject {
    cli::WorkloadOptions options;
};

// What an Evaluator resolved: the operating point (profiles, deployment) the engine's evaluator
// points into, so both live together and never move.
struct ResolvedPoint {
    HardwareObject hardware;
    ModelObject model;
    DeploymentObject deployment;
    engine::OperatingPoint point;
    std::unique_ptr<engine::Evaluator> evaluator;
};

struct EvaluatorObject {
    std::shared_ptr<const ResolvedPoint> resolved;
};

struct PredictionObject {
    engine::Prediction prediction;
    engine::Workload workload;
    cli::WorkloadOptions workload_options;
    std::shared_ptr<const ResolvedPoint> resolved;  // for to_dict's conditions
};

// Issues each message as a decodesim.DecodesimWarning (the package's class, looked up by name).
void warn_in_python(const std::vector<std::string>& messages) {
    if (messages.empty()) return;
    const py::object category = py::module_::import("decodesim").attr("DecodesimWarning");
    const py::object warn = py::module_::import("warnings").attr("warn");
    for (const auto& message : messages) warn(message, category, 1);  // 1: the Python line that called in
}

// The lines `decodesim: warning: ...` a resolver wrote to `err`, as messages.
std::vector<std::string> warnings_written(const std::string& err) {
    std::vector<std::string> messages;
    std::istringstream lines(err);
    const std::string prefix = "decodesim: warning: ";
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) == 0) messages.push_back(line.substr(prefix.size()));
    }
    return messages;
}

std::optional<std::string> runtime_given(const py::object& runtime) {
    if (runtime.is_none()) return std::nullopt;
    if (py::isinstance<RuntimeObject>(runtime)) return runtime.cast<const RuntimeObject&>().given;
    if (py::isinstance<py::str>(runtime)) return runtime.cast<std::string>();
    throw py::type_error("runtime: a decodesim.Runtime or a runtime build's name (\"vllm\", \"sglang@0.4\")");
}

DeploymentObject make_deployment(std::optional<std::string> weights, std::optional<std::string> kv,
                                 std::optional<std::string> activation, const py::object& runtime,
                                 std::optional<std::string> backend, int tp, int pp, int ep, int dp_attention,
                                 bool kv_offload, std::optional<std::string> draft, int spec_length,
                                 std::optional<double> acceptance, std::optional<double> accept_length,
                                 std::string clocks,
                                 std::optional<double> power_limit_w, bool in_process, std::string cuda_graphs,
                                 int api_servers) {
    DeploymentObject deployment;
    cli::DeploymentOptions& options = deployment.options;
    options.weights = std::move(weights);
    options.kv = std::move(kv);
    options.activation = std::move(activation);
    options.runtime = runtime_given(runtime);
    options.backend = std::move(backend);
    options.tensor_parallel = tp;
    options.pipeline_parallel = pp;
    options.expert_parallel = ep;
    options.attention_data = dp_attention;
    options.kv_offload = kv_offload;
    options.draft = std::move(draft);
    options.spec_length = spec_length;
    options.acceptance = acceptance;
    options.accept_length = accept_length;
    options.clocks = std::move(clocks);
    options.power_limit_watts = power_limit_w;
    options.in_process = in_process;
    options.cuda_graphs = std::move(cuda_graphs);
    if (api_servers < 1 || api_servers > 64) throw py::value_error("api_servers: expected 1 to 64");
    options.api_servers = api_servers;
    cli::check_option_limits(options);
    // Names with no catalog behind them are checked now, where the object is made.
    if (options.weights) cli::weight_format_named(*options.weights);
    if (options.kv) cli::kv_format_named(*options.kv);
    if (options.activation) cli::activation_named(*options.activation);
    cli::clock_choice(options.clocks, options.power_limit_watts);
    return deployment;
}

WorkloadObject make_workload(long long batch, std::optional<long long> context, std::optional<long long> prompt,
                             std::optional<long long> output, std::optional<std::string> scenario,
                             long long prefix_tokens, long long images, std::optional<long long> image_size) {
    WorkloadObject workload;
    cli::WorkloadOptions& options = workload.options;
    options.batch = batch;
    options.context = context;
    options.prompt = prompt;
    options.output = output;
    options.scenario = std::move(scenario);
    options.shared_prefix = prefix_tokens;
    options.images = images;
    options.image_size = image_size;
    cli::check_option_limits(options);
    return workload;
}

// The engine's workload for `options` on this model, exactly as resolve_point forms a command's.
engine::Workload engine_workload(const cli::WorkloadOptions& options, const profiles::ModelProfile& model) {
    engine::Workload workload = options.scenario && model.max_position_embeddings
                                    ? options.workload(*model.max_position_embeddings)
                                    : options.workload();
    return options.with_images(workload, model);
}

// The flags that name `options` on a command line, for the CLI-shaped functions.
py::list deployment_flags(const cli::DeploymentOptions& options) {
    py::list flags;
    auto add = [&flags](const char* flag, const std::string& value) {
        flags.append(flag);
        flags.append(value);
    };
    if (options.weights) add("--weights", *options.weights);
    if (options.kv) add("--kv", *options.kv);
    if (options.activation) add("--activation", *options.activation);
    if (options.runtime) add("--runtime", *options.runtime);
    if (options.backend) add("--backend", *options.backend);
    if (options.tensor_parallel != 1) add("--tp", std::to_string(options.tensor_parallel));
    if (options.pipeline_parallel != 1) add("--pp", std::to_string(options.pipeline_parallel));
    if (options.expert_parallel != 1) add("--ep", std::to_string(options.expert_parallel));
    if (options.attention_data != 1) add("--dp-attention", std::to_string(options.attention_data));
    if (options.kv_offload) flags.append("--kv-offload");
    if (options.draft) {
        add("--draft", *options.draft);
        add("--spec-length", std::to_string(options.spec_length));
    }
    if (options.acceptance) add("--acceptance", core::format_significant(*options.acceptance, 17));
    if (options.accept_length) add("--accept-length", core::format_significant(*options.accept_length, 17));
    if (options.clocks != "sustained") add("--clocks", options.clocks);
    if (options.power_limit_watts) add("--power-limit", core::format_significant(*options.power_limit_watts, 17));
    if (options.in_process) flags.append("--in-process");
    if (options.api_servers > 1) add("--api-servers", std::to_string(options.api_servers));
    if (options.cuda_graphs != "on") add("--cuda-graphs", options.cuda_graphs);
    return flags;
}

py::list workload_flags(const cli::WorkloadOptions& options) {
    py::list flags;
    auto add = [&flags](const char* flag, long long value) {
        flags.append(flag);
        flags.append(std::to_string(value));
    };
    if (options.batch != 1) add("--batch", options.batch);
    if (options.context) add("--context", *options.context);
    if (options.prompt) add("--prompt", *options.prompt);
    if (options.output) add("--output", *options.output);
    if (options.scenario) {
        flags.append("--scenario");
        flags.append(*options.scenario);
    }
    if (options.shared_prefix != 0) add("--prefix-tokens", options.shared_prefix);
    if (options.images != 0) add("--images", options.images);
    if (options.image_size) add("--image-size", *options.image_size);
    return flags;
}

std::shared_ptr<const ResolvedPoint> resolve(HardwareObject hardware, ModelObject model, DeploymentObject deployment) {
    if (hardware.root != model.root) {
        throw core::UsageError("the hardware and the model come from different profile folders (" + hardware.root +
                               ", " + model.root + "): give both the same profiles_dir");
    }
    auto resolved = std::make_shared<ResolvedPoint>();
    const profiles::Catalog catalog(hardware.root);
    cli::DeploymentOptions options = deployment.options;
    options.hardware = hardware.given;
    options.model = model.given;
    std::ostringstream out;
    std::ostringstream err;
    std::set<std::string> warned;
    resolved->point = cli::resolve_point(catalog, hardware.profile, model.profile, options,
                                         cli::WorkloadOptions{}.workload(), cli::Io{out, err, nullptr, &warned});
    resolved->evaluator = std::make_unique<engine::Evaluator>(resolved->point);
    resolved->hardware = std::move(hardware);
    resolved->model = std::move(model);
    resolved->deployment = std::move(deployment);
    warn_in_python(warnings_written(err.str()));
    return resolved;
}

HardwareObject hardware_argument(const py::object& hardware, const std::optional<std::string>& profiles_dir) {
    if (py::isinstance<HardwareObject>(hardware)) return hardware.cast<HardwareObject>();
    if (!py::isinstance<py::str>(hardware)) throw py::type_error("hardware: a decodesim.Hardware or a hardware id or path");
    const std::string root = profile_root(profiles_dir);
    const std::string given = hardware.cast<std::string>();
    return {given, root, profiles::Catalog(root).hardware(given)};
}

ModelObject model_argument(const py::object& model, const std::optional<std::string>& profiles_dir) {
    if (py::isinstance<ModelObject>(model)) return model.cast<ModelObject>();
    if (!py::isinstance<py::str>(model)) throw py::type_error("model: a decodesim.Model or a model id or path");
    const std::string root = profile_root(profiles_dir);
    const std::string given = model.cast<std::string>();
    return {given, root, profiles::Catalog(root).model(given)};
}

PredictionObject predict(const EvaluatorObject& self, const std::optional<WorkloadObject>& workload,
                         std::optional<long long> batch, std::optional<long long> context,
                         std::optional<long long> prompt, std::optional<long long> output) {
    const ResolvedPoint& resolved = *self.resolved;
    cli::WorkloadOptions options;
    if (workload) {
        if (batch || context || prompt || output) {
            throw core::UsageError("predict: give a Workload or batch, context, prompt and output, not both");
        }
        options = workload->options;
    } else {
        options.batch = batch.value_or(1);
        options.context = context;
        options.prompt = prompt;
        options.output = output;
        cli::check_option_limits(options);
    }
    PredictionObject result{{}, engine_workload(options, resolved.point.model), std::move(options), self.resolved};
    result.prediction = resolved.evaluator->predict(result.workload, engine::Detail::full);
    warn_in_python(result.prediction.warnings);
    return result;
}

// predict's figures over arrays of equal length (the package broadcasts them): one entry per point,
// every figure computed as predict computes it (engine::Detail::figures: no operator list).
py::dict evaluate_arrays(const EvaluatorObject& self, py::array_t<double, py::array::c_style | py::array::forcecast> batch,
                         std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> context,
                         std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> prompt,
                         std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> output) {
    const engine::Evaluator& evaluator = *self.resolved->evaluator;
    const auto count = static_cast<std::size_t>(batch.size());
    auto same_length = [count](const auto& array, const char* name) {
        if (array && static_cast<std::size_t>(array->size()) != count) {
            throw core::UsageError(std::string("evaluate: ") + name + " has another length than batch");
        }
    };
    same_length(context, "context");
    same_length(prompt, "prompt");
    same_length(output, "output");
    if (prompt.has_value() != output.has_value()) throw core::UsageError("evaluate: prompt and output go together");
    if (context && prompt) throw core::UsageError("evaluate: context excludes prompt and output");

    std::vector<double> per_stream(count), total(count), step(count), ttft(count), kv(count), headroom(count);
    std::vector<double> end_to_end(count, std::nan(""));
    std::vector<std::int64_t> max_batch(count), bound(count);
    std::vector<bool> fits(count);
    const double* batches = batch.data();
    const double* contexts = context ? context->data() : nullptr;
    const double* prompts = prompt ? prompt->data() : nullptr;
    const double* outputs = output ? output->data() : nullptr;
    // Each point's values must be what the command line accepts: whole, in range.
    auto checked = [](double value, const char* name, double low) {
        if (!(value >= low && value <= static_cast<double>(core::kMaxTokens)) || std::trunc(value) != value) {
            throw core::UsageError(fmt::format("evaluate: {} = {} is not a whole number from {} to {}", name,
                                               core::format_significant(value, 17), low, core::kMaxTokens));
        }
        return value;
    };
    for (std::size_t i = 0; i < count; ++i) {
        checked(batches[i], "batch", 1.0);
        if (contexts) checked(contexts[i], "context", 1.0);
        if (prompts) checked(prompts[i], "prompt", 1.0);
        if (outputs) checked(outputs[i], "output", 1.0);
    }
    {
        py::gil_scoped_release unlocked;  // the engine touches no Python object
        const double default_context = static_cast<double>(cli::kDefaultContext);
        for (std::size_t i = 0; i < count; ++i) {
            const engine::Workload workload =
                prompts ? engine::Workload::request(batches[i], prompts[i], outputs[i])
                        : engine::Workload::step(batches[i], contexts ? contexts[i] : default_context);
            const engine::Prediction prediction = evaluator.predict(workload, engine::Detail::figures);
            per_stream[i] = prediction.decode.tokens_per_s_per_stream;
            total[i] = prediction.decode.tokens_per_s_total;
            step[i] = prediction.decode.step_time.value;
            ttft[i] = prediction.ttft.value;
            kv[i] = prediction.memory.kv.value;
            headroom[i] = prediction.memory.headroom().value;
            max_batch[i] = prediction.memory.max_batch;
            fits[i] = prediction.memory.fits;
            bound[i] = static_cast<std::int64_t>(prediction.decode.bound);
            if (prediction.request) end_to_end[i] = prediction.request->end_to_end.value;
        }
    }
    py::dict columns;
    columns["tokens_per_s_per_stream"] = array_of(std::move(per_stream));
    columns["tokens_per_s_total"] = array_of(std::move(total));
    columns["step_time_s"] = array_of(std::move(step));
    columns["ttft_s"] = array_of(std::move(ttft));
    if (prompts) columns["end_to_end_s"] = array_of(std::move(end_to_end));
    columns["kv_cache_bytes"] = array_of(std::move(kv));
    columns["headroom_bytes"] = array_of(std::move(headroom));
    columns["max_batch"] = array_of(std::move(max_batch));
    py::array_t<bool> fits_array(static_cast<py::ssize_t>(count));
    for (std::size_t i = 0; i < count; ++i) fits_array.mutable_data()[i] = fits[i];
    columns["fits"] = fits_array;
    columns["bound_code"] = array_of(std::move(bound));
    return columns;
}

py::list bound_names() {
    py::list names;
    for (const auto& row : engine::kBoundNames) names.append(std::string(row.name));
    return names;
}

py::dict prediction_dict(const PredictionObject& self) {
    const ResolvedPoint& resolved = *self.resolved;
    report::Conditions conditions = report::conditions_of(resolved.point);
    conditions.workload = self.workload;
    conditions.scenario = self.workload_options.named_scenario();
    nlohmann::json document = report::prediction_to_json(conditions, self.prediction);
    report::write_whole_numbers_as_integers(document);
    return to_python(document).cast<py::dict>();
}

// A small table for notebooks: the figures a reader looks at first, with their units.
std::string prediction_html(const PredictionObject& self) {
    const engine::Prediction& p = self.prediction;
    const ResolvedPoint& resolved = *self.resolved;
    std::vector<std::pair<std::string, std::string>> rows{
        {"decode, per stream", core::format_significant(p.decode.tokens_per_s_per_stream) + " tokens/s"},
        {"decode, total", core::format_significant(p.decode.tokens_per_s_total) + " tokens/s"},
        {"step time", core::format_seconds(p.decode.step_time.value)},
        {"bound", engine::bound_name(p.decode.bound)},
        {"time to first token", core::format_seconds(p.ttft.value)},
        {"weights, one device", core::format_bytes(p.memory.weights.value)},
        {"KV cache, one device", core::format_bytes(p.memory.kv.value)},
        {"fits", p.memory.fits ? "yes" : "no"},
    };
    if (p.request) rows.emplace_back("end to end", core::format_seconds(p.request->end_to_end.value));
    std::string html = "<table><caption>" + core::xml_text(resolved.point.model.id) + " on " +
                       core::xml_text(resolved.point.hardware.id) + ", batch " +
                       fmt::format("{:g}", p.batch) + "</caption>";
    for (const auto& [name, value] : rows) html += "<tr><th>" + name + "</th><td>" + value + "</td></tr>";
    return html + "</table>";
}

std::string hardware_repr(const HardwareObject& self) { return "decodesim.Hardware('" + self.profile.id + "')"; }
std::string model_repr(const ModelObject& self) { return "decodesim.Model('" + self.profile.id + "')"; }

py::dict peak_flops(const profiles::HardwareProfile& hardware) {
    py::dict peaks;
    for (std::size_t i = 0; i < core::kAllDatatypes.size(); ++i) {
        if (hardware.peak_ops_per_s[i].value > 0.0) {
            peaks[py::str(std::string(core::datatype_name(core::kAllDatatypes[i])))] = hardware.peak_ops_per_s[i].value;
        }
    }
    return peaks;
}

template <typename T>
py::object optional_value(const std::optional<T>& value) {
    return value ? py::cast(*value) : py::none();
}

// A whole number as a Python int (batch, token counts), anything else as a float.
py::object number(double value) {
    if (std::isfinite(value) && std::trunc(value) == value && std::fabs(value) <= 9007199254740992.0) {
        return py::int_(static_cast<long long>(value));
    }
    return py::float_(value);
}

void translate_errors() {
    py::register_exception_translator([](std::exception_ptr thrown) {
        auto raise = [](const char* class_name, const std::string& message, int exit_code, py::dict where) {
            const py::object error_class = py::module_::import("decodesim").attr(class_name);
            const py::object error = error_class(message, exit_code, **where);
            PyErr_SetObject(error_class.ptr(), error.ptr());
        };
        try {
            if (thrown) std::rethrow_exception(thrown);
        } catch (const core::InputError& error) {
            std::string message;
            for (const auto& diagnostic : error.diagnostics()) {
                message += (message.empty() ? "" : "\n") + diagnostic.to_string();
            }
            py::dict where;
            if (!error.diagnostics().empty()) {
                const core::Diagnostic& first = error.diagnostics().front();
                where["file"] = first.location.file.empty() ? py::none() : py::cast(first.location.file);
                where["line"] = first.location.line > 0 ? py::cast(first.location.line) : py::none();
                where["key"] = first.key_path.empty() ? py::none() : py::cast(first.key_path);
            }
            raise("InputError", message, 1, where);
        } catch (const core::UsageError& error) {
            raise("UsageError", error.what(), 2, py::dict());
        } catch (const core::NothingComputed& error) {
            raise("NothingComputed", error.what(), 6, py::dict());
        }
    });
}

}  // namespace

void bind_engine_objects(py::module_& module) {
    using py::arg;
    translate_errors();

    py::class_<HardwareObject>(module, "Hardware", "A hardware profile (hardware_profiles/ or a YAML file)")
        .def(py::init([](const std::string& id_or_path, const std::optional<std::string>& profiles_dir) {
                 return hardware_argument(py::str(id_or_path), profiles_dir);
             }),
             arg("id_or_path"), arg("profiles_dir") = py::none(),
             "Hardware(id_or_path, profiles_dir=None): an id (\"h100-sxm\") or a profile file; profiles_dir: the "
             "folder holding hardware_profiles/ (default: the package's)")
        .def_property_readonly("id", [](const HardwareObject& self) { return self.profile.id; })
        .def_property_readonly("name", [](const HardwareObject& self) { return self.profile.name; })
        .def_property_readonly("vendor", [](const HardwareObject& self) { return self.profile.vendor; })
        .def_property_readonly("architecture", [](const HardwareObject& self) { return self.profile.architecture; })
        .def_property_readonly("memory_type", [](const HardwareObject& self) { return self.profile.memory_type; })
        .def_property_readonly("memory_capacity_bytes",
                               [](const HardwareObject& self) { return self.profile.memory_capacity.value; })
        .def_property_readonly("memory_bandwidth_bytes_per_s",
                               [](const HardwareObject& self) { return self.profile.memory_bandwidth.value; })
        .def_property_readonly("peak_flops_per_s", [](const HardwareObject& self) { return peak_flops(self.profile); },
                               "Dense peak FLOP/s (integer formats: OP/s) by datatype, at the listed clock")
        .def_property_readonly("power_w", [](const HardwareObject& self) {
            return self.profile.power ? py::cast(self.profile.power->value) : py::none();
        })
        .def_property_readonly("price_per_hour_usd",
                               [](const HardwareObject& self) { return optional_value(self.profile.price_per_hour); })
        .def_property_readonly("price_basis", [](const HardwareObject& self) {
            return std::string(core::name_of(profiles::kPriceBasisNames, self.profile.price_basis));
        })
        .def_property_readonly("source", [](const HardwareObject& self) { return self.profile.source; },
                               "Where the profile's figures come from (its source: line)")
        .def_property_readonly("given", [](const HardwareObject& self) { return self.given; },
                               "The id or path it was loaded from")
        .def_property_readonly("profiles_dir", [](const HardwareObject& self) { return self.root; })
        .def("__repr__", &hardware_repr);

    py::class_<ModelObject>(module, "Model", "A model: a profile, a config.json, a .gguf file, a checkpoint folder or ORG/NAME")
        .def(py::init([](const std::string& id_or_path, const std::optional<std::string>& profiles_dir) {
                 return model_argument(py::str(id_or_path), profiles_dir);
             }),
             arg("id_or_path"), arg("profiles_dir") = py::none(),
             "Model(id_or_path, profiles_dir=None): a model id (\"llama-3.1-8b\"), a profile YAML, a config.json, a "
             ".gguf file, a checkpoint folder, or a Hugging Face repo id (ORG/NAME) in the local hub cache")
        .def_property_readonly("id", [](const ModelObject& self) { return self.profile.id; })
        .def_property_readonly("name", [](const ModelObject& self) { return self.profile.name; })
        .def_property_readonly("parameters_total",
                               [](const ModelObject& self) { return engine::count_parameters(self.profile).total; },
                               "Every weight, embeddings included, counted from the shape")
        .def_property_readonly("parameters_active",
                               [](const ModelObject& self) { return engine::count_parameters(self.profile).active; },
                               "Weights one token's forward pass uses (top-k experts), counted from the shape")
        .def_property_readonly("parameters_stated", [](const ModelObject& self) { return optional_value(self.profile.parameters); },
                               "The published count the profile states, if any")
        .def_property_readonly("num_hidden_layers", [](const ModelObject& self) { return self.profile.num_hidden_layers; })
        .def_property_readonly("hidden_size", [](const ModelObject& self) { return self.profile.hidden_size; })
        .def_property_readonly("intermediate_size", [](const ModelObject& self) { return self.profile.intermediate_size; },
                               "The dense MLP's width (0 when no layer has a dense MLP)")
        .def_property_readonly("num_attention_heads", [](const ModelObject& self) { return self.profile.num_attention_heads; })
        .def_property_readonly("num_key_value_heads", [](const ModelObject& self) { return self.profile.num_key_value_heads; })
        .def_property_readonly("head_dim", [](const ModelObject& self) { return self.profile.head_dim; })
        .def_property_readonly("vocab_size", [](const ModelObject& self) { return self.profile.vocab_size; })
        .def_property_readonly("max_position_embeddings",
                               [](const ModelObject& self) { return optional_value(self.profile.max_position_embeddings); })
        .def_property_readonly("is_moe", [](const ModelObject& self) { return self.profile.moe.has_value(); })
        .def_property_readonly("source", [](const ModelObject& self) { return self.profile.source; })
        .def_property_readonly("given", [](const ModelObject& self) { return self.given; })
        .def_property_readonly("profiles_dir", [](const ModelObject& self) { return self.root; })
        .def("__repr__", &model_repr);

    py::class_<RuntimeObject>(module, "Runtime", "A runtime build (runtime_profiles/ or a runtime profile file)")
        .def(py::init([](const std::string& id_or_path, const std::optional<std::string>& profiles_dir) {
                 const std::string root = profile_root(profiles_dir);
                 return RuntimeObject{id_or_path, root, profiles::Catalog(root).runtime(id_or_path)};
             }),
             arg("id_or_path"), arg("profiles_dir") = py::none(),
             "Runtime(id_or_path, profiles_dir=None): \"vllm\", \"sglang\", \"llama.cpp@2024-06\", ... or a file")
        .def_property_readonly("id", [](const RuntimeObject& self) { return self.profile->id; })
        .def_property_readonly("name", [](const RuntimeObject& self) { return self.profile->name; })
        .def_property_readonly("version", [](const RuntimeObject& self) { return self.profile->version; })
        .def_property_readonly("description", [](const RuntimeObject& self) { return self.profile->description; })
        .def_property_readonly("source", [](const RuntimeObject& self) { return self.profile->source; })
        .def_property_readonly("measured", [](const RuntimeObject& self) { return self.profile->measured; },
                               "Whether the build has measurements of its own (else its figures are carried over)")
        .def_property_readonly("given", [](const RuntimeObject& self) { return self.given; })
        .def("__repr__", [](const RuntimeObject& self) { return "decodesim.Runtime('" + self.profile->id + "')"; });

    py::class_<DeploymentObject>(module, "Deployment", "How a model is deployed: formats, runtime, parallelism, clocks")
        .def(py::init(&make_deployment), py::kw_only(), arg("weights") = py::none(), arg("kv") = py::none(),
             arg("activation") = py::none(), arg("runtime") = py::none(), arg("backend") = py::none(), arg("tp") = 1,
             arg("pp") = 1, arg("ep") = 1, arg("dp_attention") = 1, arg("kv_offload") = false,
             arg("draft") = py::none(), arg("spec_length") = 4, arg("acceptance") = py::none(),
             arg("accept_length") = py::none(), arg("clocks") = "sustained", arg("power_limit_w") = py::none(), arg("in_process") = false,
             arg("cuda_graphs") = "on", arg("api_servers") = 1, "Each keyword is the command line's flag of that name (docs/cli.md); None takes its default")
        .def_property_readonly("weights", [](const DeploymentObject& self) { return self.options.weights; })
        .def_property_readonly("kv", [](const DeploymentObject& self) { return self.options.kv; })
        .def_property_readonly("activation", [](const DeploymentObject& self) { return self.options.activation; })
        .def_property_readonly("runtime", [](const DeploymentObject& self) { return self.options.runtime; })
        .def_property_readonly("tp", [](const DeploymentObject& self) { return self.options.tensor_parallel; })
        .def_property_readonly("pp", [](const DeploymentObject& self) { return self.options.pipeline_parallel; })
        .def_property_readonly("ep", [](const DeploymentObject& self) { return self.options.expert_parallel; })
        .def_property_readonly("dp_attention", [](const DeploymentObject& self) { return self.options.attention_data; })
        .def("flags", [](const DeploymentObject& self) { return deployment_flags(self.options); },
             "The command line's flags for this deployment")
        .def("__repr__", [](const DeploymentObject& self) {
            return "decodesim.Deployment(" + py::str(py::str(" ").attr("join")(deployment_flags(self.options))).cast<std::string>() + ")";
        });

    py::class_<WorkloadObject>(module, "Workload", "The load: one decode step (batch, context) or a request (batch, prompt, output)")
        .def(py::init(&make_workload), py::kw_only(), arg("batch") = 1, arg("context") = py::none(),
             arg("prompt") = py::none(), arg("output") = py::none(), arg("scenario") = py::none(),
             arg("prefix_tokens") = 0, arg("images") = 0, arg("image_size") = py::none(),
             "batch: concurrent sequences; context: tokens in each sequence's cache (default 1024); prompt and output: "
             "a request's tokens; scenario: chat, code, summarize, agent or batch; prefix_tokens: leading prompt "
             "tokens already cached; images, image_size: images a prompt carries and their side in pixels")
        .def_property_readonly("batch", [](const WorkloadObject& self) { return self.options.batch; })
        .def_property_readonly("context", [](const WorkloadObject& self) { return self.options.context; })
        .def_property_readonly("prompt", [](const WorkloadObject& self) { return self.options.prompt; })
        .def_property_readonly("output", [](const WorkloadObject& self) { return self.options.output; })
        .def_property_readonly("scenario", [](const WorkloadObject& self) { return self.options.scenario; })
        .def("flags", [](const WorkloadObject& self) { return workload_flags(self.options); },
             "The command line's flags for this workload")
        .def("__repr__", [](const WorkloadObject& self) {
            return "decodesim.Workload(" + py::str(py::str(" ").attr("join")(workload_flags(self.options))).cast<std::string>() + ")";
        });

    py::class_<engine::PrefillResult>(module, "PrefillFigures", "A prompt pass")
        .def_property_readonly("sequences", [](const engine::PrefillResult& self) { return number(self.sequences); })
        .def_property_readonly("prompt_tokens", [](const engine::PrefillResult& self) { return number(self.prompt_tokens); })
        .def_property_readonly("cached_tokens", [](const engine::PrefillResult& self) { return number(self.cached_tokens); })
        .def_property_readonly("time_s", [](const engine::PrefillResult& self) { return self.time.value; })
        .def_property_readonly("flops", [](const engine::PrefillResult& self) { return self.flops.value; })
        .def_property_readonly("bytes", [](const engine::PrefillResult& self) { return self.bytes.value; })
        .def_property_readonly("bound", [](const engine::PrefillResult& self) { return engine::bound_name(self.bound); })
        .def_property_readonly("roofline_time_s", [](const engine::PrefillResult& self) { return self.roofline_time.value; });

    py::class_<engine::MemoryFootprint>(module, "MemoryFigures", "Memory on one device")
        .def_property_readonly("weights_bytes", [](const engine::MemoryFootprint& self) { return self.weights.value; })
        .def_property_readonly("kv_cache_bytes", [](const engine::MemoryFootprint& self) { return self.kv.value; })
        .def_property_readonly("kv_bytes_per_token", [](const engine::MemoryFootprint& self) { return self.kv_per_token.value; })
        .def_property_readonly("kv_bytes_per_sequence",
                               [](const engine::MemoryFootprint& self) { return self.kv_per_sequence.value; })
        .def_property_readonly("capacity_bytes", [](const engine::MemoryFootprint& self) { return self.capacity.value; })
        .def_property_readonly("usable_bytes", [](const engine::MemoryFootprint& self) { return self.usable.value; })
        .def_property_readonly("headroom_bytes", [](const engine::MemoryFootprint& self) { return self.headroom().value; })
        .def_property_readonly("spilled_bytes", [](const engine::MemoryFootprint& self) { return self.spilled.value; })
        .def_property_readonly("fits", [](const engine::MemoryFootprint& self) { return self.fits; })
        .def_property_readonly("max_batch", [](const engine::MemoryFootprint& self) { return self.max_batch; },
                               "Sequences of this context that fit (0: not even the weights)");

    py::class_<engine::RequestResult>(module, "RequestFigures", "One request: its first token, its decode, end to end")
        .def_property_readonly("prompt_tokens", [](const engine::RequestResult& self) { return number(self.prompt); })
        .def_property_readonly("output_tokens", [](const engine::RequestResult& self) { return number(self.output); })
        .def_property_readonly("ttft_s", [](const engine::RequestResult& self) { return self.ttft.value; })
        .def_property_readonly("time_per_output_token_s",
                               [](const engine::RequestResult& self) { return self.time_per_output_token.value; })
        .def_property_readonly("decode_time_s", [](const engine::RequestResult& self) { return self.decode_time.value; })
        .def_property_readonly("end_to_end_s", [](const engine::RequestResult& self) { return self.end_to_end.value; })
        .def_property_readonly("roofline_end_to_end_s",
                               [](const engine::RequestResult& self) { return self.roofline_end_to_end.value; });

    py::class_<PredictionObject>(module, "Prediction",
                                 "One operating point's figures, as `decodesim predict` gives them; to_dict() is its "
                                 "--json document")
        .def_property_readonly("batch", [](const PredictionObject& self) { return number(self.prediction.batch); })
        .def_property_readonly("context_tokens", [](const PredictionObject& self) { return number(self.prediction.decode.context); },
                               "Tokens per sequence of the decode step (a request: the mean over its steps)")
        .def_property_readonly("tokens_per_s_per_stream",
                               [](const PredictionObject& self) { return self.prediction.decode.tokens_per_s_per_stream; })
        .def_property_readonly("tokens_per_s_total",
                               [](const PredictionObject& self) { return self.prediction.decode.tokens_per_s_total; })
        .def_property_readonly("step_time_s", [](const PredictionObject& self) { return self.prediction.decode.step_time.value; })
        .def_property_readonly("bytes_per_step", [](const PredictionObject& self) { return self.prediction.decode.bytes_per_step.value; })
        .def_property_readonly("flops_per_step", [](const PredictionObject& self) { return self.prediction.decode.flops_per_step.value; })
        .def_property_readonly("arithmetic_intensity_flops_per_byte",
                               [](const PredictionObject& self) { return self.prediction.decode.arithmetic_intensity; })
        .def_property_readonly("bound", [](const PredictionObject& self) { return engine::bound_name(self.prediction.decode.bound); },
                               "What limits the decode step: memory, compute, communication or overhead")
        .def_property_readonly("memory_fraction", [](const PredictionObject& self) { return self.prediction.decode.memory_fraction; })
        .def_property_readonly("compute_fraction", [](const PredictionObject& self) { return self.prediction.decode.compute_fraction; })
        .def_property_readonly("overhead_fraction", [](const PredictionObject& self) { return self.prediction.decode.overhead_fraction; })
        .def_property_readonly("communication_fraction",
                               [](const PredictionObject& self) { return self.prediction.decode.communication_fraction; })
        .def_property_readonly("roofline_step_time_s",
                               [](const PredictionObject& self) { return self.prediction.decode.roofline_step_time.value; })
        .def_property_readonly("roofline_tokens_per_s_per_stream",
                               [](const PredictionObject& self) { return self.prediction.decode.roofline_tokens_per_s_per_stream; })
        .def_property_readonly("roofline_tokens_per_s_total",
                               [](const PredictionObject& self) { return self.prediction.decode.roofline_tokens_per_s_total; })
        .def_property_readonly("ttft_s", [](const PredictionObject& self) { return self.prediction.ttft.value; },
                               "One request's first token at an idle server: its prefill (and image encoder)")
        .def_property_readonly("vision_encoder_s", [](const PredictionObject& self) { return self.prediction.vision_encoder.value; })
        .def_property_readonly("prefill", [](const PredictionObject& self) { return self.prediction.prefill; })
        .def_property_readonly("batch_prefill", [](const PredictionObject& self) { return self.prediction.batch_prefill; })
        .def_property_readonly("memory", [](const PredictionObject& self) { return self.prediction.memory; })
        .def_property_readonly("request", [](const PredictionObject& self) {
            return self.prediction.request ? py::cast(*self.prediction.request) : py::none();
        })
        .def_property_readonly("machine_balance_flops_per_byte",
                               [](const PredictionObject& self) { return self.prediction.machine_balance; })
        .def_property_readonly("warnings", [](const PredictionObject& self) { return self.prediction.warnings; })
        .def("to_dict", &prediction_dict, "The document `decodesim predict --json` prints for this point")
        .def("_repr_html_", &prediction_html)
        .def("__repr__", [](const PredictionObject& self) {
            return fmt::format("<decodesim.Prediction {} on {}: {} tokens/s per stream, {} total, {}-bound>",
                               self.resolved->point.model.id, self.resolved->point.hardware.id,
                               core::format_significant(self.prediction.decode.tokens_per_s_per_stream),
                               core::format_significant(self.prediction.decode.tokens_per_s_total),
                               engine::bound_name(self.prediction.decode.bound));
        });

    py::class_<EvaluatorObject>(module, "Evaluator",
                                "A model on a device under a deployment, resolved once; predict() then costs what the "
                                "engine costs")
        .def(py::init([](const py::object& hardware, const py::object& model, const std::optional<DeploymentObject>& deployment,
                         const std::optional<std::string>& profiles_dir) {
                 return EvaluatorObject{resolve(hardware_argument(hardware, profiles_dir),
                                                model_argument(model, profiles_dir), deployment.value_or(DeploymentObject{}))};
             }),
             arg("hardware"), arg("model"), arg("deployment") = py::none(), py::kw_only(), arg("profiles_dir") = py::none(),
             "Evaluator(hardware, model, deployment=None): hardware and model as objects, ids or paths")
        .def_property_readonly("hardware", [](const EvaluatorObject& self) { return self.resolved->hardware; })
        .def_property_readonly("model", [](const EvaluatorObject& self) { return self.resolved->model; })
        .def_property_readonly("deployment", [](const EvaluatorObject& self) { return self.resolved->deployment; })
        .def_property_readonly("weights", [](const EvaluatorObject& self) {
            return std::string(self.resolved->point.deployment.weights->name);
        }, "The weight format resolved (the default filled in)")
        .def_property_readonly("kv", [](const EvaluatorObject& self) { return std::string(self.resolved->point.deployment.kv->name); })
        .def_property_readonly("activation", [](const EvaluatorObject& self) {
            return std::string(core::datatype_name(self.resolved->point.deployment.activation));
        })
        .def_property_readonly("runtime", [](const EvaluatorObject& self) {
            return std::string(engine::runtime_label(self.resolved->point.deployment));
        })
        .def("predict", &predict, arg("workload") = py::none(), py::kw_only(), arg("batch") = py::none(),
             arg("context") = py::none(), arg("prompt") = py::none(), arg("output") = py::none(),
             "predict(workload=None, *, batch=None, context=None, prompt=None, output=None): the point's figures, "
             "equal to `decodesim predict --json`'s to the last bit")
        .def("decode_step_time_s",
             [](const EvaluatorObject& self, double batch, double context) {
                 return self.resolved->evaluator->decode_step_time(batch, context).value;
             },
             arg("batch"), arg("context"), "The predicted decode step time alone, in seconds (the engine's fast path)")
        .def("_evaluate_arrays", &evaluate_arrays, arg("batch"), arg("context") = py::none(),
             arg("prompt") = py::none(), arg("output") = py::none())
        .def("_flags", [](const EvaluatorObject& self) {
            py::list flags;
            flags.append("--hardware");
            flags.append(self.resolved->hardware.given);
            flags.append("--model");
            flags.append(self.resolved->model.given);
            for (const auto& flag : deployment_flags(self.resolved->deployment.options)) flags.append(flag);
            return flags;
        });

    module.def("_bound_names", &bound_names);
}

}  // namespace decodesim::python
