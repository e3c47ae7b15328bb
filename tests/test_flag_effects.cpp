// Robustness, round three: a flag that would change nothing is refused (exit 2) rather than
// ignored, and every input file's rows pass the same strict grammar (encoding, whole numbers).

#include <doctest/doctest.h>

#include "cli_runner.hpp"
#include "test_support.hpp"

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
