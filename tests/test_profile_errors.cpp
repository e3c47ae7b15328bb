// Every invalid fixture under tests/data/invalid with its exact message: file, line, column, key
// and what was expected.

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/model_loader.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

std::vector<std::string> hardware_errors(const std::string& name) {
    return testing::error_messages([&] { profiles::load_hardware_profile(testing::test_data("invalid/" + name)); });
}

std::vector<std::string> model_errors(const std::string& name) {
    return testing::error_messages([&] { profiles::load_model_profile(testing::test_data("invalid/" + name)); });
}

std::vector<std::string> config_errors(const std::string& name) {
    return testing::error_messages([&] { profiles::load_hf_config(testing::test_data("invalid/" + name)); });
}

std::string path(const std::string& name) { return testing::test_data("invalid/" + name); }

const std::string kBandwidthUnits = "(units: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, GBps, TBps, GiBps)";
const std::string kSizeUnits = "(units: B, kB, KB, MB, GB, TB, KiB, MiB, GiB, TiB)";

}  // namespace

TEST_CASE("a misspelt key is unknown, with a suggestion, and the real key is missing") {
    const auto p = path("hardware_typo.yaml");
    CHECK(hardware_errors("hardware_typo.yaml") ==
          std::vector<std::string>{p + ":4:3: error: memory.bandwidth: missing required key; expected a value with a unit",
                                   p + ":6:3: error: memory.bandwith: unknown key; did you mean 'bandwidth'?"});
}

TEST_CASE("a segment other than the four plan knows is refused by name") {
    CHECK(hardware_errors("unknown_segment.yaml") ==
          std::vector<std::string>{path("unknown_segment.yaml") +
                                   ":5:10: error: segment: unknown segment 'server'; expected one of datacenter "
                                   "workstation consumer edge"});
}

TEST_CASE("units: missing, unknown, negative, zero, not a number") {
    CHECK(hardware_errors("missing_unit.yaml") ==
          std::vector<std::string>{path("missing_unit.yaml") + ":5:13: error: memory.capacity: '80' has no unit; "
                                                               "expected a size such as '80 GB' " + kSizeUnits});
    CHECK(hardware_errors("unknown_unit.yaml") ==
          std::vector<std::string>{path("unknown_unit.yaml") +
                                   ":6:14: error: memory.bandwidth: unknown unit 'TB/sec' (did you mean 'TB/s'?); "
                                   "expected a bandwidth such as '3.35 TB/s' " + kBandwidthUnits});
    CHECK(hardware_errors("negative.yaml") ==
          std::vector<std::string>{path("negative.yaml") + ":5:13: error: memory.capacity: '-80 GB' must be greater than zero"});
    CHECK(hardware_errors("zero_compute.yaml") ==
          std::vector<std::string>{path("zero_compute.yaml") + ":8:9: error: compute.bf16: '0 TFLOPS' must be greater than zero"});
    CHECK(hardware_errors("nan_bandwidth.yaml") ==
          std::vector<std::string>{path("nan_bandwidth.yaml") +
                                   ":6:14: error: memory.bandwidth: 'nan TB/s' does not start with a finite number; "
                                   "expected a bandwidth such as '3.35 TB/s' " + kBandwidthUnits});
}

TEST_CASE("GB against Gb: an ambiguous unit is refused, naming both readings") {
    CHECK(hardware_errors("gigabit_capacity.yaml") ==
          std::vector<std::string>{path("gigabit_capacity.yaml") +
                                   ":5:13: error: memory.capacity: 'Gb' is ambiguous: units are case-sensitive and a "
                                   "lower-case 'b' means bits; write 'GB' (10^9-style decimal) or the binary KiB/MiB/GiB/TiB"});
}

TEST_CASE("structure: a value where a section belongs, duplicates, a list document, an empty file") {
    CHECK(hardware_errors("scalar_section.yaml") ==
          std::vector<std::string>{path("scalar_section.yaml") + ":3:9: error: memory: expected a mapping of keys"});
    CHECK(hardware_errors("duplicate_key.yaml") ==
          std::vector<std::string>{path("duplicate_key.yaml") + ":2:1: error: name: duplicate key; each key may appear once"});
    CHECK(hardware_errors("list_document.yaml") ==
          std::vector<std::string>{path("list_document.yaml") + ":1:1: error: expected a mapping of keys, found a list"});
    CHECK(hardware_errors("scalar_document.yaml") ==
          std::vector<std::string>{path("scalar_document.yaml") + ":1:1: error: expected a mapping of keys, found a single value"});
    CHECK(hardware_errors("empty.yaml") ==
          std::vector<std::string>{path("empty.yaml") + ":1:1: error: the file is empty; expected a mapping of keys"});
    // The file is "name: x\n" then a NUL byte: the first NUL starts line 2.
    CHECK(hardware_errors("binary.yaml") ==
          std::vector<std::string>{path("binary.yaml") + ":2:1: error: not a text file (it contains NUL bytes)"});
    const auto broken = hardware_errors("not_yaml.yaml");
    REQUIRE(broken.size() == 1);
    CHECK(broken[0].starts_with(path("not_yaml.yaml") + ":"));
    CHECK(broken[0].find("error: not valid YAML/JSON: ") != std::string::npos);
}

TEST_CASE("an unknown memory type and a fraction above 1") {
    const auto p = path("bad_memory_type.yaml");
    CHECK(hardware_errors("bad_memory_type.yaml") ==
          std::vector<std::string>{
              p + ":4:9: error: memory.type: unknown memory type 'HBM9' (did you mean 'HBM2'?); expected one of HBM2 "
                  "HBM2e HBM3 HBM3e GDDR5 GDDR5X GDDR6 GDDR6X GDDR7 LPDDR4X LPDDR5 LPDDR5X DDR5",
              p + ":10:12: error: efficiency.compute: expected a fraction in [0.01, 1], found '1.5'"});
}

TEST_CASE("model profiles: shape consistency, types, missing and misspelt keys") {
    CHECK(model_errors("model_heads.yaml") ==
          std::vector<std::string>{path("model_heads.yaml") +
                                   ":8:22: error: num_key_value_heads: 32 attention heads cannot be shared evenly by 5 "
                                   "KV heads; expected a divisor of num_attention_heads"});
    const auto p = path("model_types.yaml");
    CHECK(model_errors("model_types.yaml") ==
          std::vector<std::string>{
              p + ":3:20: error: num_hidden_layers: expected a whole number from 1 to 100000, found 'thirty'",
              p + ":1:1: error: head_dim: missing required key; expected a positive integer",
              p + ":10:22: error: tie_word_embeddings: expected true or false, found 'no'"});
    CHECK(model_errors("model_typo.yaml") ==
          std::vector<std::string>{path("model_typo.yaml") +
                                   ":3:1: error: num_hiden_layers: unknown key; did you mean 'num_hidden_layers'?"});
}

TEST_CASE("config.json: an unknown model_type and missing or mistyped keys") {
    const auto unknown = config_errors("config_unknown_type.json");
    REQUIRE(unknown.size() == 1);
    CHECK(unknown[0].starts_with(path("config_unknown_type.json") +
                                 ":2:17: error: model_type: unsupported model_type 'llamma' (did you mean 'llama'?); "
                                 "supported: llama mistral mixtral"));
    const auto p = path("config_missing_keys.json");
    CHECK(config_errors("config_missing_keys.json") ==
          std::vector<std::string>{p + ":1:1: error: num_hidden_layers: missing required key; expected a whole number",
                                   p + ":5:17: error: vocab_size: expected a whole number from 1 to 67108864, found 'many'",
                                   p + ":1:1: error: intermediate_size: missing required key; expected a whole number"});
}
