#include "report/serving/launch_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <regex>

namespace decodesim::report {

namespace {

// A whole number of requests the load generator sends: the plan's verification count, at least
// enough for a p99 (100) and a minute of the planned rate.
long long request_count(const PlannedLoad& load) {
    const double per_minute = load.rate_per_s ? *load.rate_per_s * 60.0 : (load.users ? *load.users * 10.0 : 100.0);
    return std::max(1000LL, static_cast<long long>(std::ceil(per_minute)));
}

std::string load_flags(const PlannedLoad& load, const char* input_flag, const char* output_flag) {
    std::string flags = fmt::format(" --dataset-name random {} {:.0f} {} {:.0f}", input_flag, load.prompt_tokens, output_flag,
                                    load.output_tokens);
    if (load.users) {
        flags += fmt::format(" --max-concurrency {:.0f} --request-rate inf", *load.users);
    } else if (load.rate_per_s) {
        flags += fmt::format(" --request-rate {:g}", *load.rate_per_s);
    }
    return flags + fmt::format(" --num-prompts {}", request_count(load));
}

}  // namespace

std::optional<std::string> hugging_face_repo(const std::string& source) {
    static const std::regex repo(R"(huggingface\.co/([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9][A-Za-z0-9._-]*))");
    std::smatch found;
    if (!std::regex_search(source, found, repo)) return std::nullopt;
    const std::string org = found[1].str();
    if (org == "datasets" || org == "spaces" || org == "docs") return std::nullopt;
    return org + "/" + found[2].str();
}

std::optional<LaunchCommand> launch_command(const serving::PlanOption& option, const std::string& model,
                                            const PlannedLoad& load) {
    const engine::Deployment& d = option.deployment;
    const std::string& runtime = d.runtime_profile().name;
    const engine::Parallelism& p = d.parallelism;
    const std::string weights(d.weights->name);
    const std::string kv(d.kv->name);
    const serving::SchedulerLimits& limits = option.limits;
    LaunchCommand launch;
    const int instances = option.disaggregated
                              ? option.disaggregated->pools.prefill_instances + option.disaggregated->pools.decode_instances
                              : option.replicas;
    if (instances > 1) {
        launch.notes.push_back(fmt::format("{} instances of this command, each on its own {} device{}, behind a router that "
                                           "sends each request to the instance with the fewest outstanding",
                                           instances, p.devices(), p.devices() == 1 ? "" : "s"));
    }
    if (option.disaggregated) {
        launch.notes.push_back(fmt::format("disaggregated: {} of them prefill and {} decode, the KV cache sent between them "
                                           "(vLLM --kv-transfer-config, SGLang --disaggregation-mode prefill|decode)",
                                           option.disaggregated->pools.prefill_instances,
                                           option.disaggregated->pools.decode_instances));
    }
    // Weight formats a flag quantizes at load time; the others need a checkpoint already in them.
    const bool online_fp8 = weights == "fp8";
    if (weights != "bf16" && weights != "fp16" && !online_fp8) {
        launch.notes.push_back(fmt::format("weights {}: serve a checkpoint already quantized so (its config.json says "
                                           "which); the command takes the format from it",
                                           weights));
    }
    if (runtime == "vllm") {
        launch.serve = fmt::format("vllm serve {} --tensor-parallel-size {}", model, p.tensor);
        if (p.pipeline > 1) launch.serve += fmt::format(" --pipeline-parallel-size {}", p.pipeline);
        // Attention replicas are vLLM's data parallelism; the experts spread over all their devices.
        if (p.attention_data > 1) launch.serve += fmt::format(" --data-parallel-size {}", p.attention_data);
        if (p.expert > 1) launch.serve += " --enable-expert-parallel";
        if (online_fp8) launch.serve += " --quantization fp8";
        if (kv == "fp8") launch.serve += " --kv-cache-dtype fp8";
        launch.serve += fmt::format(" --max-num-seqs {} --max-num-batched-tokens {}", limits.max_sequences,
                                    limits.max_batched_tokens);
        if (!limits.prefix_caching) launch.serve += " --no-enable-prefix-caching";
        if (option.disaggregated) {
            // vLLM's NixlConnector: each instance both sends and receives; the proxy gives the roles
            // (docs.vllm.ai, "NixlConnector Usage Guide").
            launch.serve += R"( --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}')";
            launch.serve_decode = launch.serve;
            launch.router = "a prefill/decode proxy in front: vLLM's examples/disaggregated proxy, llm-d or NVIDIA Dynamo "
                            "(each request prefilled on a prefill instance, then decoded on a decode instance)";
        }
        launch.verify = "vllm bench serve --backend vllm --model " + model + load_flags(load, "--random-input-len", "--random-output-len");
    } else if (runtime == "sglang") {
        // SGLang's --tp-size counts every device of a stage; --dp-size splits them into attention replicas.
        launch.serve = fmt::format("python -m sglang.launch_server --model-path {} --tp-size {}", model, p.stage_devices());
        if (p.attention_data > 1) launch.serve += fmt::format(" --enable-dp-attention --dp-size {}", p.attention_data);
        if (p.pipeline > 1) launch.serve += fmt::format(" --pp-size {}", p.pipeline);
        if (p.expert > 1) launch.serve += fmt::format(" --ep-size {}", p.expert);
        if (online_fp8) launch.serve += " --quantization fp8";
        if (kv == "fp8") launch.serve += " --kv-cache-dtype fp8_e4m3";
        launch.serve += fmt::format(" --max-running-requests {} --chunked-prefill-size {}", limits.max_sequences,
                                    limits.max_batched_tokens);
        if (!limits.prefix_caching) launch.serve += " --disable-radix-cache";
        if (option.disaggregated) {
            launch.serve_decode = launch.serve + " --disaggregation-mode decode";
            launch.serve += " --disaggregation-mode prefill";
            launch.router = "python -m sglang_router.launch_router --pd-disaggregation --prefill http://PREFILL_HOST:30000 "
                            "--decode http://DECODE_HOST:30000";
            launch.notes.push_back("the router takes one --prefill URL a prefill instance and one --decode URL a decode "
                                   "instance");
        }
        launch.verify = "python -m sglang.bench_serving --backend sglang --model " + model +
                        load_flags(load, "--random-input-len", "--random-output-len");
    } else if (runtime == "tensorrt-llm") {
        launch.serve = fmt::format("trtllm-serve {} --tp_size {}", model, p.tensor);
        if (p.pipeline > 1) launch.serve += fmt::format(" --pp_size {}", p.pipeline);
        if (p.expert > 1) launch.serve += fmt::format(" --ep_size {}", p.expert);
        launch.serve += fmt::format(" --max_batch_size {} --max_num_tokens {}", limits.max_sequences, limits.max_batched_tokens);
        if (online_fp8 || kv == "fp8") {
            launch.notes.push_back("fp8 weights or cache: quantize the checkpoint with TensorRT Model Optimizer first "
                                   "(trtllm-serve reads the format from it)");
        }
        launch.verify = "vllm bench serve --backend openai --model " + model +
                        load_flags(load, "--random-input-len", "--random-output-len");
    } else if (runtime == "llama.cpp") {
        launch.serve = fmt::format("llama-server -m MODEL-{}.gguf -ngl 999 -np {} -c {:.0f}", weights, limits.max_sequences,
                                   static_cast<double>(limits.max_sequences) * (load.prompt_tokens + load.output_tokens));
        // Rows of every matrix over the devices (tensor parallelism), or whole layers (stages).
        if (p.tensor > 1) launch.serve += " --split-mode row";
        if (p.pipeline > 1) launch.serve += " --split-mode layer";
        launch.notes.push_back("llama.cpp: the GGUF file of the model in this format, and -c the total context of all "
                               "-np slots");
        launch.verify = "vllm bench serve --backend openai --model " + model +
                        load_flags(load, "--random-input-len", "--random-output-len");
    } else {
        return std::nullopt;
    }
    return launch;
}

}  // namespace decodesim::report
