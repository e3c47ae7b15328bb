// A command line with manners: help for a bare `decodesim` and `decodesim help CMD`, "did you
// mean" for an unknown command or flag, and every error pointing at the right help.

#include <doctest/doctest.h>

#include "cli_runner.hpp"
#include "test_support.hpp"

using decodesim::testing::run;

TEST_CASE("bare decodesim and decodesim help print help") {
    const auto bare = run({});
    CHECK(bare.exit_code == 0);
    CHECK(bare.out.find("Subcommands:") != std::string::npos);
    const auto help = run({"help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Subcommands:") != std::string::npos);
    const auto topic = run({"help", "predict"});
    CHECK(topic.exit_code == 0);
    CHECK(topic.out.find("--hardware") != std::string::npos);
    const auto wrong_topic = run({"help", "prdict"});
    CHECK(wrong_topic.exit_code == 2);
    CHECK(wrong_topic.err.find("did you mean 'predict'") != std::string::npos);
}

TEST_CASE("an unknown command or flag gets a suggestion and exit 2") {
    const auto command = run({"prdict"});
    CHECK(command.exit_code == 2);
    CHECK(command.err.find("unknown command 'prdict' (did you mean 'predict'?)") != std::string::npos);
    const auto flag = run({"predict", "--hardwre", "h100-sxm", "--model", "llama-3.1-8b"});
    CHECK(flag.exit_code == 2);
    CHECK(flag.err.find("unknown flag '--hardwre' (did you mean '--hardware'?)") != std::string::npos);
    CHECK(flag.err.find("decodesim predict --help") != std::string::npos);
    // The same with --flag=value.
    const auto joined = run({"predict", "--hardwre=h100-sxm", "--model", "llama-3.1-8b"});
    CHECK(joined.err.find("did you mean '--hardware'") != std::string::npos);
    // A correct --flag=value still runs.
    CHECK(run({"predict", "--hardware=h100-sxm", "--model", "llama-3.1-8b"}).exit_code == 0);
    // Errors CLI11 finds point at the command's own help.
    const auto missing = run({"predict", "--model", "llama-3.1-8b"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("Run 'decodesim predict --help'") != std::string::npos);
    // accuracy --fit prints a table only: asking for JSON beside it is refused, not answered in text.
    const auto fit_json = run({"accuracy", "--fit", "--json"});
    CHECK(fit_json.exit_code == 2);
    CHECK(fit_json.err.find("--fit excludes --json") != std::string::npos);
    CHECK(fit_json.out.empty());
}

TEST_CASE("NaN and infinities are refused for every floating-point flag, in one place") {
    // CLI11's range checks compare, and every comparison with NaN is false: the value would pass.
    const std::vector<std::vector<std::string>> lines{
        {"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--power-limit", "nan"},
        {"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate=NaN"},
        {"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--ttft-slo", "inf"},
        {"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--per", "stream", "--tokens-per-s", "-inf"},
        {"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "1", "--ttft-p99", "infinity"},
        {"compare", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--target-tokens-per-s", "nan"},
        {"versus", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--claim", "NAN"},
    };
    for (const auto& line : lines) {
        const auto result = run(line);
        CAPTURE(line[0]);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find("is not a finite number") != std::string::npos);
    }
}

TEST_CASE("a rate or latency target out of range is refused with its range as written") {
    // CLI::Range printed a lower bound of 1e-09 as 0.000000: "Value 0 not in range 0.000000 to ...".
    // The floors stand for "more than nothing" and keep a run's times finite (a rate of 1e-308 s^-1
    // would put the arrivals past the largest double).
    const std::vector<std::vector<std::string>> lines{
        {"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "1", "--ttft-p99", "0"},
        {"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "0"},
        {"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "-2"},
        {"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "1e-308"},
        {"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tpot-slo", "0"},
        {"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tokens-per-s", "0"},
        {"compare", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--target-tokens-per-s", "-1"},
        {"versus", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--claim", "0"},
    };
    for (const auto& line : lines) {
        const auto result = run(line);
        CAPTURE(line);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find("expected a number from 1e-0") != std::string::npos);
        CHECK(result.err.find("0.000000") == std::string::npos);
    }
    const auto target = run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "1", "--ttft-p99", "0"});
    CHECK(target.err.find("--ttft-p99: 0: expected a number from 1e-09 to 1000000000") != std::string::npos);
    const auto high = run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "2e7"});
    CHECK(high.exit_code == 2);
    CHECK(high.err.find("from 1e-06 to 10000000") != std::string::npos);
    // Every other bounded real-valued flag reads the same way: its own range, as written.
    const std::vector<std::pair<std::vector<std::string>, std::string>> others{
        {{"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--users", "4", "--think-time", "1e9"},
         "--think-time: 1000000000: expected a number from 0 to 1000000"},
        {{"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "1", "--pue", "9"},
         "--pue: 9: expected a number from 1 to 5"},
        {{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "1", "--burstiness", "0"},
         "--burstiness: 0: expected a number from 0.001 to 1000"},
        {{"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--power-limit", "0"},
         "--power-limit: 0: expected a number from 0.001 to"},
    };
    for (const auto& other : others) {
        const std::vector<std::string>& line = other.first;  // not a structured binding: CAPTURE takes it into a lambda
        const auto result = run(line);
        CAPTURE(line);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(other.second) != std::string::npos);
    }
}
