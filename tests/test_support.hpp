#pragma once
// Shared helpers for the doctest suite: shipped and pinned profiles, streams, resolved setups.
// Tests that run the command line in-process also include tests/cli_runner.hpp.

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "core/registry.hpp"
#include "core/error.hpp"
#include "core/quantization.hpp"
#include "workload/request_stream.hpp"
#include "engine/cost_model.hpp"
#include "engine/operating_point.hpp"
#include "engine/prediction.hpp"
#include "profiles/catalog.hpp"
#include "profiles/measurement.hpp"

// Typed quantities compare with doctest::Approx on their SI value, and print with their unit.
namespace decodesim::core {
template <typename Tag>
bool operator==(Quantity<Tag> quantity, const doctest::Approx& approx) {
    return quantity.value == approx;
}
template <typename Tag>
std::ostream& operator<<(std::ostream& stream, Quantity<Tag> quantity) {
    return stream << quantity.value << " (SI)";
}
}  // namespace decodesim::core

namespace decodesim::testing {

// Under AddressSanitizer and UndefinedBehaviorSanitizer (./make.sh test's second build) a test that
// guards fitted figures, not memory, is skipped: it repeats the whole fit dozens of times, ten times
// slower there, and runs unsanitized in the release build.
#if defined(DECODESIM_SANITIZED)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

inline profiles::Catalog shipped_catalog() { return profiles::Catalog(DECODESIM_ROOT); }

inline std::string test_data(const std::string& relative) { return std::string(DECODESIM_TEST_DATA) + "/" + relative; }

// A shipped runtime profile by id or name ("vllm", "llama.cpp@2024-06"), resolved as --runtime does.
inline std::shared_ptr<const engine::RuntimeProfile> shipped_runtime(const std::string& id) {
    return shipped_catalog().runtime(id);
}

// The runtime a physics test evaluates under. The two current builds, "vllm" and "llama.cpp", are
// read from pinned copies (tests/data/runtime_profiles/pinned-*.yaml) whose factors the tests'
// hand derivations assume, so that a refit of the shipped profiles moves the golden file
// (tests/test_golden.cpp), not these tests; any other id is the shipped build.
inline std::shared_ptr<const engine::RuntimeProfile> test_runtime(const std::string& id) {
    if (id == "vllm") return shipped_catalog().runtime(test_data("runtime_profiles/pinned-vllm-0.8.yaml"));
    if (id == "llama.cpp") return shipped_catalog().runtime(test_data("runtime_profiles/pinned-llama.cpp-2025-10.yaml"));
    return shipped_runtime(id);
}

// A stream of `count` requests of fixed lengths, Poisson arrivals at `rate` per second.
inline std::vector<workload::Request> fixed_stream(double rate, long long prompt, long long output, long long count,
                                                    std::uint64_t seed = 1) {
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = rate;
    spec.prompt.first = static_cast<double>(prompt);
    spec.output.first = static_cast<double>(output);
    spec.requests = count;
    spec.seed = seed;
    return workload::generate_requests(spec);
}

// This test process's own folder under the system's temporary folder, removed when the process
// exits. CTest runs the test cases as processes side by side; two that wrote the same file name to
// one shared folder raced (one case read the other's invalid profile).
class ScratchFolder {
public:
    ScratchFolder() : path_(std::filesystem::temp_directory_path() / ("decodesim-tests-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(path_);
    }
    ~ScratchFolder() {
        std::error_code ignored;  // a folder that cannot be removed is left, not an error at exit
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline std::filesystem::path scratch_folder() {
    static const ScratchFolder folder;
    return folder.path();
}

// Writes `text` to `name` in this process's scratch folder and returns the path.
inline std::string write_temp(const std::string& name, const std::string& text) {
    const std::filesystem::path path = scratch_folder() / name;
    std::ofstream(path) << text;
    return path.string();
}

// A runtime profile on vLLM's kernels (base vllm@0.8) with one section of its own, `section:`
// with its source and then `lines` (each indented two spaces), written as `file`: its path.
inline std::string runtime_with_section(const std::string& file, const std::string& section, const std::string& lines) {
    return write_temp(file, "name: " + section + "-test\nbase: vllm@0.8\ndescription: \"t\"\nsource: \"t\"\n"
                            "measured: false\nmeasurements: \"t\"\n" + section + ":\n  source: \"t\"\n" + lines);
}

// The whole of a file, for tests that derive an input from a fixture.
inline std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// The rows of validation/measurements.csv (one a line) that `keep` takes, under its header, written
// to `name` in the temporary folder: a test that needs a few real rows runs `accuracy` on them
// alone, not on the whole file.
template <typename Keep>
std::string measurement_subset(const std::string& name, Keep keep) {
    std::ifstream file(std::string(DECODESIM_ROOT) + "/validation/measurements.csv");
    std::string line, text;
    for (bool header = true; std::getline(file, line); header = false) {
        if (header || keep(line)) text += line + "\n";
    }
    return write_temp(name, text);
}

// The header row of validation/measurements.csv, for tests that write a few rows of their own.
inline const std::string kMeasurementHeader =
    "id,hardware,model,weights,kv,engine,runtime,batch,prompt,output,context,metric,value,source,conditions,notes\n";

// A measurement of Llama-3.1-8B in bf16 (weights and KV cache) on an H100 SXM under a vLLM-class
// engine, for tests that build their rows by hand; lengths and load are the caller's.
inline profiles::Measurement h100_llama8b_row(std::string id, profiles::Metric metric, double value) {
    profiles::Measurement m;
    m.id = std::move(id);
    m.hardware = "h100-sxm";
    m.model = "llama-3.1-8b";
    m.weights = "bf16";
    m.kv = "bf16";
    m.engine = "vllm";
    m.runtime = "vllm@0.6";
    m.metric = metric;
    m.value = value;
    return m;
}

// The one-line messages of the InputError `load` throws, or {"(no error)"}.
inline std::vector<std::string> error_messages(const std::function<void()>& load) {
    try {
        load();
    } catch (const core::InputError& error) {
        std::vector<std::string> lines;
        for (const auto& diagnostic : error.diagnostics()) lines.push_back(diagnostic.to_string());
        return lines;
    }
    return {"(no error)"};
}

// A model and a device resolved for evaluation with the given formats.
struct Setup {
    profiles::HardwareProfile hardware;
    profiles::ModelProfile model;
    engine::Deployment deployment;

    engine::Evaluator evaluator(engine::Efficiency efficiency) const {
        return engine::Evaluator(model, hardware, deployment, efficiency);
    }
    engine::Evaluator ideal() const { return evaluator(engine::ideal_efficiency()); }
    engine::Evaluator realistic() const { return evaluator(engine::deployment_efficiency(hardware, deployment)); }
    engine::OperatingPoint point(const engine::Workload& workload = engine::Workload::step(1, 1024)) const {
        return {hardware, model, deployment, workload, std::nullopt};
    }
};

// Resolved by the one resolver every command uses.

// Llama-2-7B on an RTX 4090 under llama.cpp in `weights`, reduced to its cost model, with `adjust`
// setting the one condition a test varies.
inline engine::CostModel llama2_llama_cpp_cost(const std::string& weights,
                                               const std::function<void(engine::DeploymentChoice&)>& adjust) {
    const auto catalog = shipped_catalog();
    const auto hardware = catalog.hardware("rtx-4090");
    const auto model = catalog.model("llama-2-7b");
    engine::DeploymentChoice choice;
    choice.weights = &core::named_or_throw(core::weight_formats(), weights, "--weights", "format");
    choice.runtime = test_runtime("llama.cpp");
    adjust(choice);
    return engine::build_cost_model(model, engine::resolve_deployment(hardware, model, choice));
}

inline Setup setup(const std::string& hardware, const std::string& model, const std::string& weights = "bf16",
                   const std::string& kv = "", int tp = 1, const std::string& runtime = "vllm") {
    const auto catalog = shipped_catalog();
    Setup result{catalog.hardware(hardware), catalog.model(model), {}};
    engine::DeploymentChoice choice;
    choice.runtime = test_runtime(runtime);
    choice.weights = core::find_named(core::weight_formats(), weights);
    choice.kv = kv.empty() ? nullptr : core::find_named(core::kv_formats(), kv);
    choice.parallelism.tensor = tp;
    result.deployment = engine::resolve_deployment(result.hardware, result.model, choice);
    return result;
}

// The same under a named runtime, its kernels built for `backend` (unset: the device's own).
inline Setup setup_on(const std::string& hardware, const std::string& model, const std::string& weights,
                      const std::string& runtime, std::optional<core::Backend> backend = std::nullopt,
                      const std::string& kv = "fp16") {
    const auto catalog = shipped_catalog();
    Setup result{catalog.hardware(hardware), catalog.model(model), {}};
    engine::DeploymentChoice choice;
    choice.weights = &core::named_or_throw(core::weight_formats(), weights, "--weights", "format");
    choice.kv = &core::named_or_throw(core::kv_formats(), kv, "--kv", "format");
    choice.runtime = test_runtime(runtime);
    choice.backend = backend;
    result.deployment = engine::resolve_deployment(result.hardware, result.model, choice);
    return result;
}

}  // namespace decodesim::testing
