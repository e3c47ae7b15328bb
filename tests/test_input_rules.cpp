// Robustness, round three: a flag that would change nothing is refused (exit 2) rather than
// ignored, and every input file's rows pass the same strict grammar (encoding, whole numbers).

#include <doctest/doctest.h>

#include "cli_runner.hpp"
#include "profiles/long_lists.hpp"
#include "profiles/trace.hpp"
#include "test_support.hpp"
#include "workload/request_stream.hpp"

using namespace decodesim;
using decodesim::testing::run;
using decodesim::testing::write_temp;

namespace {

std::vector<std::string> serve_with(std::vector<std::string> extra) {
    std::vector<std::string> args{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--requests", "20"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

const std::string kTrace = "arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,200,20\n";

}  // namespace

TEST_CASE("flags a trace overrides are refused beside --trace, naming the flag") {
    const std::string trace = write_temp("flag_effects_trace.csv", kTrace);
    // A trace's requests are its rows: --requests beside it would be silently ignored.
    for (const std::vector<std::string>& flag :
         std::vector<std::vector<std::string>>{{"--prompt", "500"}, {"--output", "50"}, {"--arrivals", "gamma"},
                                               {"--seed", "3"}, {"--prefix-fraction", "0.5"}, {"--prefix-tokens", "10"},
                                               {"--prefix-groups", "2"}}) {
        std::vector<std::string> args{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", trace};
        args.insert(args.end(), flag.begin(), flag.end());
        const auto result = run(args);
        CAPTURE(flag[0]);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(flag[0] + " has no effect here") != std::string::npos);
    }
    const auto requests = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", trace, "--requests", "50"});
    CHECK(requests.exit_code == 2);
    CHECK(requests.err.find("--requests has no effect here: it acts only on a generated stream") != std::string::npos);
    // The trace alone still runs.
    CHECK(run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", trace}).exit_code == 0);
}

TEST_CASE("a flag that acts only with another is refused alone") {
    // Poisson arrivals have no shape to set.
    const auto burst = run(serve_with({"--burstiness", "0.5"}));
    CHECK(burst.exit_code == 2);
    CHECK(burst.err.find("--burstiness has no effect here: it acts only with gamma arrivals") != std::string::npos);
    CHECK(run(serve_with({"--arrivals", "gamma", "--burstiness", "0.5"})).exit_code == 0);
    // A prefix needs both its share and its length.
    const auto fraction = run(serve_with({"--prefix-fraction", "0.5"}));
    CHECK(fraction.exit_code == 2);
    CHECK(fraction.err.find("--prefix-fraction has no effect here") != std::string::npos);
    const auto tokens = run(serve_with({"--prefix-tokens", "100"}));
    CHECK(tokens.exit_code == 2);
    CHECK(tokens.err.find("--prefix-tokens has no effect here") != std::string::npos);
    const auto groups = run(serve_with({"--prefix-groups", "4"}));
    CHECK(groups.exit_code == 2);
    CHECK(groups.err.find("--prefix-groups has no effect here") != std::string::npos);
    CHECK(run(serve_with({"--prefix-fraction", "0.5", "--prefix-tokens", "100", "--prefix-groups", "4"})).exit_code == 0);
    // plan: a think time is a closed loop's; the seed is the verifying simulation's.
    const auto think = run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "2", "--think-time", "3",
                            "--verify-requests", "0"});
    CHECK(think.exit_code == 2);
    CHECK(think.err.find("--think-time has no effect here") != std::string::npos);
    const auto seed = run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "2", "--verify-requests",
                           "0", "--seed", "5"});
    CHECK(seed.exit_code == 2);
    CHECK(seed.err.find("--seed has no effect here") != std::string::npos);
}

TEST_CASE("numbers that would wrap, repeat or round are refused") {
    // A negative seed used to wrap to 2^64 - 1.
    const auto negative = run(serve_with({"--seed", "-1"}));
    CHECK(negative.exit_code == 2);
    CHECK(negative.err.find("--seed") != std::string::npos);
    // Users are whole people.
    const auto users = run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--users", "2.5"});
    CHECK(users.exit_code == 2);
    CHECK(users.err.find("--users") != std::string::npos);
    // A device listed twice would be planned twice.
    const auto twice = run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm,h100-sxm", "--rate", "1"});
    CHECK(twice.exit_code == 2);
    CHECK(twice.err.find("'h100-sxm' is listed twice") != std::string::npos);
}

TEST_CASE("a shared prefix longer than the prompt is refused, or counted where only some prompts are shorter") {
    const auto fixed = run(serve_with({"--prompt", "100", "--prefix-fraction", "1", "--prefix-tokens", "500"}));
    CHECK(fixed.exit_code == 2);
    CHECK(fixed.err.find("--prefix-tokens 500 is longer than every prompt (100 tokens)") != std::string::npos);
    // uniform:100:1000 draws a prompt below 500 tokens with probability 400/901: some of the 20.
    const auto drawn =
        run(serve_with({"--prompt", "uniform:100:1000", "--prefix-fraction", "1", "--prefix-tokens", "500"}));
    CHECK(drawn.exit_code == 0);
    CHECK(drawn.err.find("of the 20 requests with a shared prefix drew a prompt shorter than --prefix-tokens 500") !=
          std::string::npos);
}

TEST_CASE("--draft mtp needs a model with multi-token-prediction layers") {
    const auto none = run(serve_with({"--draft", "mtp", "--acceptance", "0.7"}));
    CHECK(none.exit_code != 0);
    CHECK(none.err.find("has no multi-token-prediction layers") != std::string::npos);
    const auto predict = run({"predict", "--hardware", "h100-sxm", "--model", "qwen3-8b", "--draft", "mtp", "--acceptance", "0.7"});
    CHECK(predict.exit_code != 0);
    // DeepSeek-V3's config.json states num_nextn_predict_layers 1.
    CHECK(run({"predict", "--hardware", "h200-sxm", "--model", "deepseek-v3", "--weights", "fp8", "--tp", "8", "--draft",
               "mtp", "--acceptance", "0.7"})
              .exit_code == 0);
}

TEST_CASE("a trace is read under the shared text and number rules") {
    // A UTF-8 byte-order mark (what Excel writes) is dropped, as in every profile.
    const std::string bom = write_temp("flag_effects_bom.csv", "\xEF\xBB\xBF" + kTrace);
    CHECK(run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", bom}).exit_code == 0);
    // UTF-16 is named as such.
    const std::string utf16 = write_temp("flag_effects_utf16.csv", std::string("\xFF\xFE" "a\0r\0", 6));
    const auto wide = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", utf16});
    CHECK(wide.exit_code == 1);
    CHECK(wide.err.find(":1:1: error: the file is encoded as UTF-16; save it as UTF-8") != std::string::npos);
    // Token counts are whole numbers in digits: "1e3" names its line 2, column 2 and key.
    const std::string exponent =
        write_temp("flag_effects_exponent.csv", "arrival_s,prompt_tokens,output_tokens\n0,1e3,10\n");
    const auto e3 = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", exponent});
    CHECK(e3.exit_code == 1);
    CHECK(e3.err.find(":2:2: error: prompt_tokens: '1e3' is not a whole number") != std::string::npos);
    // Quoted fields follow the CSV grammar of every table.
    const std::string quoted =
        write_temp("flag_effects_quoted.csv", "arrival_s,prompt_tokens,output_tokens\n0,\"100\",10\n");
    CHECK(run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", quoted}).exit_code == 0);
}

// The public trace layouts, each as its first rows read (Azure/AzurePublicDataset
// AzureLLMInferenceTrace_conv.csv, HPMLL/BurstGPT BurstGPT_1.csv, kvcache-ai/Mooncake traces).
TEST_CASE("Azure, BurstGPT and Mooncake traces are read with their times, lengths and block ids") {
    const auto azure = profiles::load_trace(write_temp("azure_trace.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        "2023-11-16 18:15:46.6805900,374,44\n"
        "2023-11-16 18:15:50.9951690,396,109\n"
        "2023-11-17 00:00:01.0000000,879,0\n"));
    CHECK(azure.layout == "Azure");
    REQUIRE(azure.rows.size() == 2);
    CHECK(azure.failed_rows == 1);  // no generated tokens: the service failed it
    // 18:15:50.995169 - 18:15:46.68059 = 4.314579 s.
    CHECK(azure.rows[1].arrival_s - azure.rows[0].arrival_s == doctest::Approx(4.314579).epsilon(1e-6));
    CHECK(azure.rows[0].prompt_tokens == 374);
    CHECK(azure.rows[1].output_tokens == 109);
    // 2023-11-16 is day 19,677 since 1970-01-01: 19,677 x 86,400 + 18 h 15 min 46.68059 s.
    CHECK(azure.rows[0].arrival_s == doctest::Approx(19677.0 * 86400.0 + 18 * 3600 + 15 * 60 + 46.68059).epsilon(1e-12));

    const auto burst = profiles::load_trace(write_temp("burst_trace.csv",
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "5,ChatGPT,472,18,490,Conversation log\n"
        "45,ChatGPT,1087,0,1087,Conversation log\n"
        "118,GPT-4,417,276,693,API log\n"));
    CHECK(burst.layout == "BurstGPT");
    REQUIRE(burst.rows.size() == 2);
    CHECK(burst.failed_rows == 1);
    CHECK(burst.rows[1].arrival_s == 118.0);
    CHECK(burst.rows[1].prompt_tokens == 417);
    CHECK(burst.rows[1].output_tokens == 276);

    const auto mooncake = profiles::load_trace(write_temp("mooncake_trace.jsonl",
        "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [46, 47, 48]}\n"
        "{\"timestamp\": 250, \"input_length\": 700, \"output_length\": 9, \"hash_ids\": [46, 49]}\n"));
    CHECK(mooncake.layout == "Mooncake");
    REQUIRE(mooncake.rows.size() == 2);
    CHECK(mooncake.rows[1].arrival_s == 0.25);  // milliseconds
    CHECK(mooncake.rows[1].block_ids == std::vector<long long>{46, 49});
    CHECK(mooncake.rows[0].block_tokens == 512);

    // 1,200 tokens fill 3 blocks of 512: four ids are one too many; a line that is no JSON object
    // is named at its line.
    const auto refused = testing::error_messages([&] {
        profiles::load_trace(write_temp("mooncake_bad.jsonl",
            "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [1, 2, 3, 4]}\n"
            "not json\n"
            "{\"timestamp\": 1.5, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": []}\n"));
    });
    REQUIRE(refused.size() == 3);
    CHECK(refused[0].find(":1:1: error: hash_ids: 4 block ids for an input of 1200 tokens, which fills 3 blocks") !=
          std::string::npos);
    CHECK(refused[1].find(":2:1: error: not a JSON object") != std::string::npos);
    CHECK(refused[2].find(":3:1: error: timestamp: 1.5 is not a whole number") != std::string::npos);
    const auto date = testing::error_messages([&] {
        profiles::load_trace(write_temp("azure_bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-13-01 00:00:00,5,5\n"));
    });
    REQUIRE(date.size() == 1);
    CHECK(date[0].find(":2:1: error: TIMESTAMP: '2023-13-01 00:00:00' is not a date and time") != std::string::npos);
    // A date before 1970 would be a negative arrival (a fuzzer's find: year 1011 after 2023).
    const auto ancient = testing::error_messages([&] {
        profiles::load_trace(write_temp("azure_ancient.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                             "2023-11-16 18:15:46.68,4808,10\n1011-11-16 18:15:50.99,3180,8\n"));
    });
    REQUIRE(ancient.size() == 1);
    CHECK(ancient[0].find(":3:1: error: TIMESTAMP: '1011-11-16 18:15:50.99' is not a date and time YYYY-MM-DD "
                          "HH:MM:SS[.fraction] from 1970 on") != std::string::npos);

    // serve replays a Mooncake trace and says how many of a BurstGPT trace's requests it left out.
    const auto served = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace",
                             write_temp("mooncake_serve.jsonl",
                                        "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [46, 47, 48]}\n"
                                        "{\"timestamp\": 20000, \"input_length\": 1100, \"output_length\": 9, \"hash_ids\": [46, 47, 50]}\n"),
                             "--json"});
    REQUIRE_MESSAGE(served.exit_code == 0, served.err);
    const auto burst_served = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace",
                                   write_temp("burst_serve.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                                                 "5,ChatGPT,472,18,490,Conversation log\n45,ChatGPT,1087,0,1087,Conversation log\n")});
    CHECK(burst_served.exit_code == 0);
    CHECK(burst_served.err.find("1 requests the traced service failed") != std::string::npos);
}

TEST_CASE("a measurements table's counts are whole numbers within the flags' bounds") {
    const std::string header = "id,hardware,model,weights,kv,engine,runtime,batch,prompt,output,context,metric,value,source,conditions,notes\n";
    const auto with_batch = [&](const std::string& name, const std::string& batch) {
        return write_temp(name, header + "r1,rtx-4090,llama-3.1-8b,q4_k_m,fp16,llama.cpp,llama.cpp@2025-10," + batch +
                                    ",,128,,decode_tokens_per_s_per_stream,158.36,my bench,,\n");
    };
    // Column 8 is the batch.
    const auto zero = run({"accuracy", with_batch("rows_batch0.csv", "0")});
    CHECK(zero.exit_code == 1);
    CHECK(zero.err.find(":2:8: error: batch: 0 is out of range 1 to 1000000000") != std::string::npos);
    const auto huge = run({"accuracy", with_batch("rows_batch_huge.csv", "100000000000000000000")});
    CHECK(huge.exit_code == 1);
    CHECK(huge.err.find(":2:8: error: batch: '100000000000000000000' is not a whole number") != std::string::npos);
    const auto fraction = run({"accuracy", with_batch("rows_batch_fraction.csv", "2.5")});
    CHECK(fraction.exit_code == 1);
    CHECK(fraction.err.find(":2:8: error: batch: '2.5' is not a whole number") != std::string::npos);
    CHECK(run({"accuracy", with_batch("rows_batch_one.csv", "1")}).exit_code == 0);
}

namespace {

// The calibrate fixture cut to 32 requests (one per client, at its lengths of 1024 and 256), so that
// its replays stay cheap under the sanitizers.
std::string short_serve_run() {
    std::string text = testing::read_file(testing::test_data("calibrate/vllm_serve.json"));
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"\"completed\": 640", "\"completed\": 32"},
             {"\"total_input_tokens\": 655360", "\"total_input_tokens\": 32768"},
             {"\"total_output_tokens\": 163840", "\"total_output_tokens\": 8192"}}) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    }
    return text;
}

}  // namespace

TEST_CASE("a serving benchmark's clients are whole, and a zero figure is counted as skipped") {
    std::string text = short_serve_run();
    const auto replaced = [&](const std::string& from, const std::string& to) {
        std::string copy = text;
        const auto at = copy.find(from);
        REQUIRE(at != std::string::npos);
        return copy.replace(at, from.size(), to);
    };
    const std::string half = write_temp("serve_half_client.json", replaced("\"max_concurrency\": 32", "\"max_concurrency\": 3.5"));
    const auto clients = run({"calibrate", half, "--hardware", "h100-sxm", "--model", "llama-3.1-8b"});
    CHECK(clients.exit_code == 1);
    CHECK(clients.err.find("max_concurrency: '3.5' clients: expected a whole number from 1 to") != std::string::npos);
    // A median TPOT of 0 measures nothing: its row is left out and the summary counts it.
    const std::string zero = write_temp("serve_zero_tpot.json", replaced("\"median_tpot_ms\": 17.6", "\"median_tpot_ms\": 0"));
    const auto skipped = run({"calibrate", zero, "--hardware", "h100-sxm", "--model", "llama-3.1-8b"});
    CHECK(skipped.exit_code == 0);
    CHECK(skipped.err.find("its tpot_s is 0, which measures nothing") != std::string::npos);
    CHECK(skipped.out.find("2 rows of vllm bench serve JSON (1 more skipped)") != std::string::npos);
}

TEST_CASE("calibrate leaves out rows that beat physics, and does not write a fit worse than its base") {
    // 10^30 tokens/s is beyond any device: llama-3.1-8b in bf16 reads 16 GB a step, so an H100's
    // 3.35 TB/s allows a few thousand tokens/s at batch 32.
    std::string text = short_serve_run();
    text.replace(text.find("\"output_throughput\": 1721.0"), 27, "\"output_throughput\": 1e30");
    const auto beyond = run({"calibrate", write_temp("serve_beyond.json", text), "--hardware", "h100-sxm", "--model",
                             "llama-3.1-8b"});
    CHECK(beyond.exit_code == 0);
    CHECK(beyond.err.find("beats the physical bound") != std::string::npos);
    CHECK(beyond.out.find("2 rows of vllm bench serve JSON (1 more skipped)") != std::string::npos);

    // Fourteen single-stream decode rows, sorted by output length: calibrate holds out every fourth
    // (outputs 103, 107, 111) and fits on the other eleven (a kind is fitted from 10 rows). The held-out rows state 150
    // tokens/s, near what the llama.cpp preset predicts for an 8B q4_k_m model on an RTX 4090
    // (158 measured above); the fitted rows state 50, so the fit slows the preset by about 3x and
    // the held-out error grows from a few percent to about 200%.
    std::string rows = "id,hardware,model,weights,kv,engine,runtime,batch,prompt,output,context,metric,value,source,conditions,notes\n";
    for (int i = 0; i < 14; ++i) {
        rows += fmt::format("r{},rtx-4090,llama-3.1-8b,q4_k_m,fp16,llama.cpp,llama.cpp@2025-10,1,,{},,"
                            "decode_tokens_per_s_per_stream,{},my bench,attention=fused,\n",
                            i, 100 + i, i % 4 == 3 ? 150 : 50);
    }
    const std::string table = write_temp("worse_fit.csv", rows);
    const std::string out = (testing::scratch_folder() / "worse_fit.yaml").string();
    std::filesystem::remove(out);
    const auto worse = run({"calibrate", table, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--output", out});
    CHECK(worse.exit_code == 6);
    CHECK(worse.err.find("predicts the held-out rows worse than") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
    const auto forced =
        run({"calibrate", table, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--output", out, "--force"});
    CHECK(forced.exit_code == 0);
    CHECK(std::filesystem::exists(out));
    // --force acts only with --output.
    CHECK(run({"calibrate", table, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--force"}).exit_code == 2);
}

TEST_CASE("a list of more scalars than any reader needs is not parsed, and every other key keeps its line") {
    // 65,537 numbers, one past the limit, over two lines: replaced, its line break kept.
    std::string numbers = "[0";
    for (int i = 1; i <= 65536; ++i) numbers += i == 30000 ? ",\n1" : ",1";
    numbers += "]";
    const std::string text = "{\"a\": " + numbers + ",\n\"b\": \"x],[,\"}";
    const std::string elided = profiles::elide_long_scalar_lists(text);
    CHECK(elided == "{\"a\": \"<a list of 65537 entries, not read>\"\n,\n\"b\": \"x],[,\"}");
    // At the limit, or holding objects, a list is kept whole.
    std::string at_limit = "[0";
    for (int i = 1; i < 65536; ++i) at_limit += ",1";
    at_limit += "]";
    CHECK(profiles::elide_long_scalar_lists(at_limit) == at_limit);
    std::string objects = "[{}";
    for (int i = 1; i <= 65536; ++i) objects += ",{}";
    objects += "]";
    CHECK(profiles::elide_long_scalar_lists(objects) == objects);

    // A config.json carrying a million-entry list it does not use predicts as the config without it.
    const std::string config = testing::read_file(testing::test_data("hf_configs/llama-3.1-8b.json"));
    std::string padded = config.substr(0, config.rfind('}'));
    padded += ",\n\"unused_table\": [0";
    for (int i = 1; i < 1'000'000; ++i) padded += ",0";
    padded += "]\n}\n";
    const auto plain = run({"predict", "--hardware", "h100-sxm", "--model", testing::test_data("hf_configs/llama-3.1-8b.json"), "--json"});
    const auto big = run({"predict", "--hardware", "h100-sxm", "--model", write_temp("config_with_table.json", padded), "--json"});
    REQUIRE(plain.exit_code == 0);
    REQUIRE(big.exit_code == 0);
    const auto figure = [](const std::string& json) {
        return nlohmann::json::parse(json)["decode"]["tokens_per_s_per_stream"].get<double>();
    };
    CHECK(figure(big.out) == figure(plain.out));
}

TEST_CASE("a device runs its own backends, and an Apple device gets a runtime that runs on it") {
    // vLLM has no Metal backend: on Apple silicon the default is llama.cpp.
    const auto apple = run({"predict", "--hardware", "apple-m1-max", "--model", "llama-3.1-8b", "--json"});
    REQUIRE(apple.exit_code == 0);
    const auto conditions = nlohmann::json::parse(apple.out)["conditions"];
    CHECK(conditions["runtime"].get<std::string>().starts_with("llama.cpp@"));
    CHECK(conditions["backend"] == "metal");
    // Elsewhere the default stays vLLM.
    const auto h100 = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--json"});
    CHECK(nlohmann::json::parse(h100.out)["conditions"]["runtime"] == "vllm@0.8");
    // CUDA kernels on an Apple GPU are no deployment; Vulkan runs on any GPU vendor's GPU.
    const auto cuda = run({"predict", "--hardware", "apple-m1-max", "--model", "llama-3.1-8b", "--backend", "cuda"});
    CHECK(cuda.exit_code == 1);
    CHECK(cuda.err.find("cuda kernels do not run on apple-m1-max, a device of apple: it runs metal or vulkan") !=
          std::string::npos);
    const auto metal = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--backend", "metal"});
    CHECK(metal.exit_code == 1);
    CHECK(run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", "llama.cpp", "--backend", "vulkan"})
              .exit_code == 0);
    // compare resolves each device's default: the Apple row runs llama.cpp, the H100 row vLLM.
    const auto compared = run({"compare", "--hardware", "h100-sxm,apple-m1-max", "--model", "llama-3.1-8b", "--json"});
    REQUIRE(compared.exit_code == 0);
    const auto document = nlohmann::json::parse(compared.out);  // held: the loop reads rows inside it
    for (const auto& row : document["rows"]) {
        const std::string runtime = row["conditions"]["runtime"];
        CHECK(runtime.starts_with(row["hardware"] == "apple-m1-max" ? "llama.cpp@" : "vllm@"));
    }
}

TEST_CASE("inter-token percentiles never exceed the largest gap") {
    // The gaps are binned (0.2% wide bins); a bin's middle can lie above every gap in it. With one
    // stream every gap of a request is the same step time, so the percentiles and the maximum are
    // all but equal and the binning shows: the percentiles are held to the gaps seen.
    for (const char* model : {"llama-3.1-8b", "qwen3-8b", "llama-3.2-1b", "mistral-7b"}) {
        for (const char* output : {"17", "300"}) {
            const auto result = run({"serve", "--hardware", "h100-sxm", "--model", model, "--concurrency", "1", "--requests",
                                     "2", "--prompt", "64", "--output", output, "--json"});
            REQUIRE(result.exit_code == 0);
            const auto itl = nlohmann::json::parse(result.out)["itl_s"];
            CAPTURE(model);
            CAPTURE(output);
            CHECK(itl["p50"].get<double>() <= itl["p90"].get<double>());
            CHECK(itl["p90"].get<double>() <= itl["p99"].get<double>());
            CHECK(itl["p99"].get<double>() <= itl["max"].get<double>());
        }
    }
}

TEST_CASE("a workload that does not fit is said first, and check-claim names what would make it fit") {
    // Llama-3.1-70B in bf16 is 70.6e9 x 2 = 141.1 GB of weights: more than an RTX 4090's 24 GB, and
    // than one H100's 80 GB; on H100s it fits at tensor parallelism 2 (70.6 GB each) or in fp8 on one.
    const auto predict = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-70b"});
    REQUIRE(predict.exit_code == 0);
    const auto table = predict.out.find("tokens/s per stream");
    const auto warning = predict.out.find("DOES NOT FIT: the weights alone");
    REQUIRE(warning != std::string::npos);
    CHECK(warning < table);
    CHECK(predict.out.find("if it fit") != std::string::npos);

    const auto within = run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--tokens-per-s", "5",
                             "--per", "stream", "--json"});
    REQUIRE(within.exit_code == 5);  // check-claim exits 5 for needs-conditions (docs/cli.md)
    const auto check = nlohmann::json::parse(within.out);
    // Within physics (about 24 tokens/s at batch 1), but not on one device as stated.
    CHECK(check["verdict"] == "needs-conditions");
    CHECK(check["fits"] == false);
    CHECK(check["devices_to_fit"] == 2);
    CHECK(check["weights_to_fit"] == "fp8");
    // A claim that names its precision is not offered a narrower one.
    const auto stated = run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--weights", "bf16",
                             "--tokens-per-s", "5", "--per", "stream", "--json"});
    const auto stated_check = nlohmann::json::parse(stated.out);
    CHECK(stated_check["devices_to_fit"] == 2);
    CHECK(stated_check["weights_to_fit"].is_null());
}

namespace {

// A Mooncake line whose `key` holds `depth` nested lists, the other fields as a valid line's.
std::string mooncake_nested(const std::string& key, int depth) {
    const std::string nested =
        std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
    std::string line = "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [1]}\n";
    const std::string value = key == "timestamp" ? "0" : "[1]";
    line.replace(line.find("\"" + key + "\": " + value) + key.size() + 4, value.size(), nested);
    return line;
}

}  // namespace

TEST_CASE("a Mooncake line nested past sixteen levels is refused at its line and key, in a short message") {
    // 80,000 levels crashed the printing of the error (a recursion per level); 50,000 printed them all.
    for (const std::string key : {"hash_ids", "timestamp"}) {
        const std::string path = write_temp("mooncake_deep_" + key + ".jsonl", mooncake_nested(key, 80000));
        const auto messages = testing::error_messages([&] { profiles::load_trace(path); });
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":1:1: error: " + key +
                                 ": nested deeper than 16 levels (a Mooncake line nests two: an object holding a "
                                 "list of block ids)");
        const auto served = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", path});
        CHECK(served.exit_code == 1);
        const auto planned = run({"plan", "--model", "llama-3.1-8b", "--trace", path});
        CHECK(planned.exit_code == 1);
        CHECK(planned.err.size() < 300);
    }
    // Within the bound a value is quoted, cut to 40 characters.
    const std::string path =
        write_temp("mooncake_long_value.jsonl",
                   "{\"timestamp\": \"" + std::string(100, 'x') +
                       "\", \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [[[[1]]]]}\n");
    const auto messages = testing::error_messages([&] { profiles::load_trace(path); });
    REQUIRE(messages.size() == 2);
    CHECK(messages[0] == path + ":1:1: error: timestamp: \"" + std::string(39, 'x') +
                             "... is not a whole number from 0 to 1125899906842624");
    CHECK(messages[1] == path + ":1:1: error: hash_ids: [[[1]]] is not a block id (a whole number from 0 to 2^53)");
}

TEST_CASE("a key given twice in a Mooncake line is refused at its line") {
    const std::string path = write_temp(
        "mooncake_twice.jsonl",
        "{\"timestamp\": 5, \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [1]}\n"
        "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 20, \"hash_ids\": [1], \"timestamp\": 99}\n");
    CHECK(testing::error_messages([&] { profiles::load_trace(path); }) ==
          std::vector<std::string>{path + ":2:1: error: timestamp: duplicate key; each key may appear once"});
}

TEST_CASE("an Azure date past its month's last day is refused, and leap days are read") {
    const auto read = [](const std::string& name, const std::string& date) {
        return testing::error_messages([&] {
            profiles::load_trace(write_temp(
                name, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-01-01 00:00:00,5,5\n" + date + ",5,5\n"));
        });
    };
    for (const std::string date :
         {"2023-02-30 18:15:50.99", "2023-02-29 00:00:00", "2023-04-31 00:00:00", "2100-02-29 00:00:00"}) {
        CAPTURE(date);
        const auto messages = read("azure_impossible.csv", date);
        REQUIRE(messages.size() == 1);
        CHECK(messages[0].find(":3:1: error: TIMESTAMP: '" + date + "' is not a date and time") != std::string::npos);
    }
    // 2024 and 2000 are leap years (2000 by the 400-year rule); 2100 above is not.
    CHECK(read("azure_leap.csv", "2024-02-29 00:00:00") == std::vector<std::string>{"(no error)"});
    CHECK(read("azure_leap_2000.csv", "2000-02-29 00:00:00") == std::vector<std::string>{"(no error)"});
}

TEST_CASE("trace arrivals within a microsecond are one burst: serve offers no rate and plan refuses") {
    // 0 and 1e-308 s: a rate of 1/1e-308 would be 1e308 requests/s.
    const std::string tiny =
        write_temp("burst_trace.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,10\n1e-308,100,10\n");
    const auto served = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", tiny, "--json"});
    REQUIRE_MESSAGE(served.exit_code == 0, served.err);
    const auto document = nlohmann::json::parse(served.out);
    CHECK(document["throughput"]["offered_requests_per_s"].is_null());
    const auto planned = run({"plan", "--model", "llama-3.1-8b", "--trace", tiny});
    CHECK(planned.exit_code == 1);
    CHECK(planned.err.find(tiny + ": error: a trace to plan for needs two requests or more arriving over time (over a "
                                  "microsecond or more: closer arrivals are one burst, with no rate)") !=
          std::string::npos);
    // Two microseconds apart: one gap, 1 / 2e-6 = 500,000 requests/s offered.
    const std::string apart =
        write_temp("two_us_trace.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,10\n2e-6,100,10\n");
    const auto rated = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--trace", apart, "--json"});
    REQUIRE_MESSAGE(rated.exit_code == 0, rated.err);
    CHECK(nlohmann::json::parse(rated.out)["throughput"]["offered_requests_per_s"].get<double>() ==
          doctest::Approx(5e5).epsilon(1e-9).scale(0.0));
}

TEST_CASE("a run whose requests all arrive at once offers no rate: not defined in text, null in JSON") {
    for (const std::vector<std::string>& load :
         std::vector<std::vector<std::string>>{{"--concurrency", "8", "--requests", "8"}, {"--requests", "1"}}) {
        CAPTURE(load[0]);
        std::vector<std::string> args{"serve",    "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                                      "--prompt", "100",        "--output", "10"};
        args.insert(args.end(), load.begin(), load.end());
        const auto text = run(args);
        REQUIRE_MESSAGE(text.exit_code == 0, text.err);
        CHECK(text.out.find("offered 0") == std::string::npos);
        CHECK(text.out.find("(offered rate not") != std::string::npos);
        args.push_back("--json");
        const auto json = run(args);
        REQUIRE(json.exit_code == 0);
        CHECK(nlohmann::json::parse(json.out)["throughput"]["offered_requests_per_s"].is_null());
    }
    // Arrivals over time still state their rate.
    const auto rated = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "100", "--output",
                            "10", "--requests", "20", "--rate", "5", "--json"});
    REQUIRE(rated.exit_code == 0);
    CHECK(nlohmann::json::parse(rated.out)["throughput"]["offered_requests_per_s"].get<double>() > 0.0);
}

TEST_CASE("--price naming a device twice is refused, as a price list's row is") {
    const auto served = run(serve_with({"--max-output", "100", "--price", "h100-sxm=2,h100-sxm=3"}));
    CHECK(served.exit_code == 2);
    CHECK(served.err.find("--price: 'h100-sxm' is listed twice in 'h100-sxm=2,h100-sxm=3'") != std::string::npos);
    const auto planned = run({"plan", "--model", "llama-3.1-8b", "--rate", "1", "--hardware", "h100-sxm", "--price",
                              "h100-sxm=2,h100-sxm=3"});
    CHECK(planned.exit_code == 2);
    CHECK(planned.err.find("--price: 'h100-sxm' is listed twice") != std::string::npos);
}

TEST_CASE("a length spread whose floor at one token moves the mean by over 1% is refused by flag") {
    // normal 1000 sd 1000: z = (1 - 1000) / 1000 = -0.999, Phi(z) = 0.158897, phi(z) = 0.242213; the
    // floor adds (1 - 1000) x 0.158897 + 1000 x 0.242213 = 83.474 tokens, 8.3% of the mean.
    workload::LengthDistribution wide{workload::LengthDistribution::Kind::normal, 1000.0, 1000.0, std::nullopt};
    CHECK(wide.mean_added_by_floor() == doctest::Approx(83.474).epsilon(1e-4).scale(0.0));
    CHECK(wide.mean() == doctest::Approx(1083.474).epsilon(1e-5).scale(0.0));
    // normal 1000 sd 80000 under a context cap of 130,872: E[min(X, c)] alone is -759 tokens (a
    // negative load, which plan reported as a model that does not fit); the floor adds 31,418.
    workload::LengthDistribution capped{workload::LengthDistribution::Kind::normal, 1000.0, 80000.0, 130872.0};
    CHECK(capped.capped_mean() == doctest::Approx(-759.17).epsilon(1e-4).scale(0.0));
    CHECK(capped.mean() == doctest::Approx(30659.2).epsilon(1e-5).scale(0.0));

    const auto refused = run(serve_with({"--prompt", "normal:1000:30000"}));
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("--prompt: 'normal:1000:30000' draws so many lengths below 1 token that, sent as 1, they "
                           "average 12475, not 1000 (more than 1% off)") != std::string::npos);
    const auto planned = run({"plan", "--model", "llama-3.1-8b", "--rate", "0.01", "--prompt", "normal:1000:80000",
                              "--ttft-p99", "100", "--tpot-p99", "1"});
    CHECK(planned.exit_code == 2);
    CHECK(planned.err.find("--prompt: 'normal:1000:80000' draws so many lengths below 1 token") != std::string::npos);
    // normal 1000 sd 500: the floor adds 4.3 tokens, 0.43%: read.
    CHECK(run(serve_with({"--prompt", "normal:1000:500"})).exit_code == 0);
}
