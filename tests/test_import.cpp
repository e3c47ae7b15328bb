// Importing real checkpoints: GGUF and safetensors headers, model folders and .gguf paths
// (profiles/gguf_header.hpp, profiles/safetensors_header.hpp, profiles/checkpoint_folder.hpp).
// The files are written here, byte by byte, by a writer that follows the published layouts
// (the GGUF specification, gguf.md in ggml's docs; safetensors README "Format"); expected figures
// are derived in the comments.

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/model_shape.hpp"
#include "profiles/checkpoint_folder.hpp"
#include "profiles/gguf_header.hpp"
#include "profiles/hf_cache.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/safetensors_header.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using decodesim::testing::error_messages;
namespace profiles = decodesim::profiles;

namespace {

// Little-endian GGUF v3 writer: metadata entries, then tensor infos.
struct GgufWriter {
    std::string kvs;
    std::uint64_t kv_count = 0;
    std::string infos;
    std::uint64_t tensor_count = 0;
    std::uint64_t next_offset = 0;  // data offsets, each aligned to 32

    static void put(std::string& out, std::uint64_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    }
    static void put_string(std::string& out, std::string_view text) {
        put(out, text.size(), 8);
        out.append(text);
    }
    void key(std::string_view name, std::uint32_t type) {
        put_string(kvs, name);
        put(kvs, type, 4);
        ++kv_count;
    }
    void u32(std::string_view name, std::uint32_t value) {
        key(name, 4);
        put(kvs, value, 4);
    }
    void text(std::string_view name, std::string_view value) {
        key(name, 8);
        put_string(kvs, value);
    }
    void tokens(std::uint64_t count) {
        key("tokenizer.ggml.tokens", 9);
        put(kvs, 8, 4);
        put(kvs, count, 8);
        for (std::uint64_t i = 0; i < count; ++i) put_string(kvs, "t");
    }
    // A tensor of ggml type `type` whose data takes `bytes` (the caller's hand computation).
    void tensor(std::string_view name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t bytes) {
        put_string(infos, name);
        put(infos, dims.size(), 4);
        for (auto dim : dims) put(infos, dim, 8);
        put(infos, type, 4);
        put(infos, next_offset, 8);
        next_offset += (bytes + 31) / 32 * 32;
        ++tensor_count;
    }
    std::string header() const {
        std::string out = "GGUF";
        put(out, 3, 4);
        put(out, tensor_count, 8);
        put(out, kv_count, 8);
        return out + kvs + infos;
    }
    // Header, padding to 32, and room for the data (a sparse file: nothing is written there).
    std::uint64_t file_size() const { return (header().size() + 31) / 32 * 32 + next_offset; }
    void write(const fs::path& path) const {
        {
            std::ofstream file(path, std::ios::binary | std::ios::trunc);
            file << header();
        }
        fs::resize_file(path, file_size());
    }
};

constexpr std::uint32_t kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ4_K = 12, kQ6_K = 14;

fs::path scratch(const std::string& name) {
    const fs::path folder = fs::path(DECODESIM_BINARY_DIR) / "import-test" / name;
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder;
}

// Llama-3.1-8B as llama.cpp writes it (config.json: 32 layers, hidden 4096, FFN 14336, 32 heads,
// 8 KV heads, vocabulary 128256, untied output), with every matrix in Q4_K and the output in Q6_K.
GgufWriter llama_8b_gguf() {
    GgufWriter gguf;
    gguf.text("general.architecture", "llama");
    gguf.text("general.name", "Llama 3.1 8B");
    gguf.u32("general.file_type", 15);  // LLAMA_FTYPE_MOSTLY_Q4_K_M
    gguf.u32("llama.block_count", 32);
    gguf.u32("llama.context_length", 131072);
    gguf.u32("llama.embedding_length", 4096);
    gguf.u32("llama.feed_forward_length", 14336);
    gguf.u32("llama.attention.head_count", 32);
    gguf.u32("llama.attention.head_count_kv", 8);
    gguf.tokens(128256);
    // Q4_K: 144 B per 256 weights; Q6_K: 210 B per 256.
    gguf.tensor("token_embd.weight", {4096, 128256}, kQ4_K, 4096ull * 128256 / 256 * 144);
    gguf.tensor("output.weight", {4096, 128256}, kQ6_K, 4096ull * 128256 / 256 * 210);
    return gguf;
}

}  // namespace

TEST_CASE("import: ggml block layouts give the documented bits per weight") {
    // ggml-common.h: Q4_0 18 B / 32, Q8_0 34 B / 32, Q4_K 144 B / 256, Q6_K 210 B / 256, MXFP4 17 B / 32.
    CHECK(profiles::ggml_type(2)->bits_per_weight() == doctest::Approx(4.5));
    CHECK(profiles::ggml_type(8)->bits_per_weight() == doctest::Approx(8.5));
    CHECK(profiles::ggml_type(12)->bits_per_weight() == doctest::Approx(4.5));
    CHECK(profiles::ggml_type(14)->bits_per_weight() == doctest::Approx(6.5625));
    CHECK(profiles::ggml_type(39)->bits_per_weight() == doctest::Approx(4.25));
    CHECK_FALSE(profiles::ggml_type(4).has_value());  // Q4_2, removed from ggml
}

TEST_CASE("import: a GGUF tensor list gives the exact bytes and bits per weight") {
    GgufWriter gguf;
    gguf.text("general.architecture", "llama");
    // Two Q4_0 4096x4096: 4096*4096/32 blocks * 18 B = 9,437,184 B each; one F16 of 4096: 8192 B.
    gguf.tensor("blk.0.attn_q.weight", {4096, 4096}, kQ4_0, 9437184);
    gguf.tensor("blk.0.attn_output.weight", {4096, 4096}, kQ4_0, 9437184);
    gguf.tensor("output_norm.weight", {4096}, kF16, 8192);
    const auto header = profiles::parse_gguf_header(gguf.header(), gguf.file_size(), "two.gguf");
    REQUIRE(header.tensors.size() == 3);
    CHECK(header.version == 3);
    CHECK(header.find("general.architecture")->text == "llama");
    CHECK(header.tensors[0].bytes == 9437184);
    CHECK(header.tensors[0].bytes * 8.0 / header.tensors[0].elements == doctest::Approx(4.5));
    CHECK(header.tensors[2].bytes == 8192);
    const auto totals = profiles::gguf_totals({header});
    // (2 * 9,437,184 + 8,192) B * 8 / (2 * 16,777,216 + 4,096) weights = 151,060,480 / 33,558,528
    // = 4.5 + (151,060,480 - 4.5 * 33,558,528) / 33,558,528 = 4.5 + 47,104 / 33,558,528 = 4.501404.
    CHECK(totals.bytes == 18882560.0);
    CHECK(totals.weights == 33558528.0);
    CHECK(8 * totals.bytes / totals.weights == doctest::Approx(4.501404).epsilon(1e-6));
    CHECK(totals.dominant_type == kQ4_0);
}

TEST_CASE("import: a Llama-3.1-8B GGUF has the shape and parameter count of the llama-3.1-8b profile") {
    const fs::path folder = scratch("Llama-3.1-8B-GGUF");
    const GgufWriter gguf = llama_8b_gguf();
    gguf.write(folder / "llama-3.1-8b-q4_k_m.gguf");
    const auto catalog = decodesim::testing::shipped_catalog();
    const auto shipped = catalog.model("llama-3.1-8b");
    for (const std::string& given : {(folder / "llama-3.1-8b-q4_k_m.gguf").string(), folder.string()}) {
        CAPTURE(given);
        const auto model = catalog.model(given);
        CHECK(model.num_hidden_layers == 32);
        CHECK(model.hidden_size == 4096);
        CHECK(model.intermediate_size == 14336);
        CHECK(model.num_key_value_heads == 8);
        CHECK(model.head_dim == 128);  // 4096 / 32: no key_length stated
        CHECK(model.vocab_size == 128256);
        CHECK_FALSE(model.tie_word_embeddings);
        CHECK(*model.max_position_embeddings == 131072);
        CHECK(decodesim::engine::count_parameters(model).total == decodesim::engine::count_parameters(shipped).total);
        REQUIRE(model.checkpoint_weights != nullptr);
        CHECK(model.checkpoint_weights->name == "q4_k_m");
        CHECK(model.checkpoint_quantization == "GGUF Q4_K_M");
        // Only the two vocabulary matrices are listed: 525,336,576 weights each; Q4_K 4.5 and Q6_K
        // 6.5625 bits, so (4.5 + 6.5625) / 2 = 5.53125 bits per weight.
        CHECK(*model.checkpoint_parameters == 2.0 * 4096 * 128256);
        CHECK(*model.checkpoint_bits_per_weight == doctest::Approx(5.53125));
    }
    CHECK(catalog.model(folder.string()).id == "Llama-3.1-8B-GGUF");
}

TEST_CASE("import: a Qwen3-30B-A3B GGUF maps to the qwen3-30b-a3b profile's experts") {
    // Qwen3-30B-A3B config.json: 48 layers, hidden 2048, 32 heads, 4 KV heads, head_dim 128,
    // 128 experts of 768, 8 per token, vocabulary 151936, untied. No token list here: the
    // vocabulary comes from token_embd.weight's second dimension.
    GgufWriter gguf;
    gguf.text("general.architecture", "qwen3moe");
    gguf.u32("qwen3moe.block_count", 48);
    gguf.u32("qwen3moe.context_length", 40960);
    gguf.u32("qwen3moe.embedding_length", 2048);
    gguf.u32("qwen3moe.feed_forward_length", 6144);
    gguf.u32("qwen3moe.expert_feed_forward_length", 768);
    gguf.u32("qwen3moe.attention.head_count", 32);
    gguf.u32("qwen3moe.attention.head_count_kv", 4);
    gguf.u32("qwen3moe.attention.key_length", 128);
    gguf.u32("qwen3moe.expert_count", 128);
    gguf.u32("qwen3moe.expert_used_count", 8);
    gguf.tensor("token_embd.weight", {2048, 151936}, kQ6_K, 2048ull * 151936 / 256 * 210);
    gguf.tensor("output.weight", {2048, 151936}, kQ6_K, 2048ull * 151936 / 256 * 210);
    const auto model = profiles::model_from_gguf({profiles::parse_gguf_header(gguf.header(), gguf.file_size(), "q.gguf")});
    const auto shipped = decodesim::testing::shipped_catalog().model("qwen3-30b-a3b");
    REQUIRE(model.moe.has_value());
    CHECK(model.moe->n_routed_experts == 128);
    CHECK(model.moe->num_experts_per_tok == 8);
    CHECK(model.moe->moe_intermediate_size == 768);
    CHECK(model.intermediate_size == 0);
    CHECK(model.vocab_size == 151936);
    CHECK(decodesim::engine::count_parameters(model).total == decodesim::engine::count_parameters(shipped).total);
    // No general.file_type: the dominant tensor type, Q6_K, names the format.
    CHECK(model.checkpoint_weights->name == "q6_k");
    CHECK(model.checkpoint_quantization == "GGUF, mostly Q6_K");
}

TEST_CASE("import: hostile or truncated GGUF headers are refused with what is wrong") {
    const auto refused = [](const std::string& bytes, std::uint64_t file_size) {
        return error_messages([&] { profiles::parse_gguf_header(bytes, file_size, "bad.gguf"); });
    };
    using Lines = std::vector<std::string>;
    const std::string start = GgufWriter().header();  // magic, version 3, no tensors, no metadata
    CHECK(refused("GGML", 4) == Lines{"bad.gguf: error: not a GGUF file (it does not start with the magic 'GGUF')"});
    std::string v1 = start;
    v1[4] = 1;
    CHECK(refused(v1, v1.size()) ==
          Lines{"bad.gguf: error: GGUF version 1 (2023, 32-bit counts) is not supported; expected 2 or 3"});
    // Cut inside the tensor count: 4 + 4 + 3 bytes.
    CHECK(refused(start.substr(0, 11), 11) ==
          Lines{"bad.gguf: error: truncated: the file ends at byte 11 inside the header, where the tensor count needs 8 "
                "bytes but 3 remain"});
    // A billion metadata entries in a 24-byte file: each needs at least 13 bytes.
    std::string many = start;
    GgufWriter::put(many.replace(16, 8, ""), 1000000000, 8);
    CHECK(refused(many, many.size()) ==
          Lines{"bad.gguf: error: the header declares 1000000000 metadata entries, more than its 0 bytes can hold"});
    // A key claiming 2^40 bytes.
    GgufWriter long_key;
    long_key.text("general.architecture", "llama");
    std::string huge = long_key.header();
    huge.replace(24, 8, std::string("\0\0\0\0\0\1\0\0", 8));
    CHECK(refused(huge, huge.size()) ==
          Lines{"bad.gguf: error: metadata key 0 is 1099511627776 bytes long; at most 65535 are allowed"});
    // A string value longer than the file.
    GgufWriter long_value;
    long_value.text("general.name", "Llama");
    std::string cut = long_value.header();
    cut.resize(cut.size() - 2);
    CHECK(refused(cut, cut.size()) ==
          Lines{"bad.gguf: error: truncated: the file ends at byte 59 inside the header, where the value of "
                "'general.name' needs 5 bytes but 3 remain"});
    // An array of arrays.
    GgufWriter nested;
    nested.key("x.nested", 9);
    GgufWriter::put(nested.kvs, 9, 4);
    GgufWriter::put(nested.kvs, 1, 8);
    CHECK(refused(nested.header(), 100) ==
          Lines{"bad.gguf: error: x.nested: an array of arrays; decodesim reads no nested arrays (no model key uses one)"});
    // A header longer than the bytes read, in a larger file: beyond the 64 MiB cap.
    CHECK(refused(start.substr(0, 11), std::uint64_t{1} << 40).front().starts_with(
        "bad.gguf: error: the header is larger than 64 MiB"));
    // Tensor data past the end of the file (a partial download): 4096*4096 Q4_0 takes 9,437,184 B.
    GgufWriter partial;
    partial.tensor("blk.0.attn_q.weight", {4096, 4096}, kQ4_0, 9437184);
    const auto header_end = (partial.header().size() + 31) / 32 * 32;
    CHECK(refused(partial.header(), 1000000) ==
          Lines{fmt::format("bad.gguf: error: blk.0.attn_q.weight: its 9437184 bytes of data at offset {} run past the "
                            "end of the 1000000-byte file (an incomplete download?)",
                            header_end)});
    // Rows that do not fill Q4_0 blocks of 32.
    GgufWriter ragged;
    ragged.tensor("t", {33}, kQ4_0, 18);
    CHECK(refused(ragged.header(), 1000) ==
          Lines{"bad.gguf: error: t: rows of 33 weights do not fill whole Q4_0 blocks of 32"});
    // An architecture decodesim does not map.
    GgufWriter gpt2;
    gpt2.text("general.architecture", "gpt2");
    CHECK(error_messages([&] {
              profiles::model_from_gguf({profiles::parse_gguf_header(gpt2.header(), gpt2.file_size(), "gpt2.gguf")});
          }) == Lines{"gpt2.gguf: error: general.architecture: architecture 'gpt2' is not one decodesim maps; supported: "
                      "llama mistral3 qwen2 qwen3 qwen2moe qwen3moe gemma gemma2 gemma3 phi3 deepseek2 glm4moe (or use the model's config.json)"});
    // A shape key out of the model limits, as a YAML profile would refuse it.
    GgufWriter wide = llama_8b_gguf();
    wide.u32("llama.attention.key_length", 0);
    const auto messages = error_messages(
        [&] { profiles::model_from_gguf({profiles::parse_gguf_header(wide.header(), wide.file_size(), "w.gguf")}); });
    CHECK(messages == Lines{"w.gguf: error: llama.attention.key_length: expected a whole number from 1 to 16777216, found 0"});
}

namespace {

// A safetensors file: the 8-byte little-endian header length, the JSON header, then `data_bytes`
// of (sparse) tensor data.
void write_safetensors(const fs::path& path, const std::string& json, std::uint64_t data_bytes) {
    {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        std::string length;
        GgufWriter::put(length, json.size(), 8);
        file << length << json;
    }
    fs::resize_file(path, 8 + json.size() + data_bytes);
}

}  // namespace

TEST_CASE("import: a safetensors shard with BF16 and FP8 tensors gives exact bytes and bits per weight") {
    const fs::path folder = scratch("fp8-shard");
    // BF16 4096x4096: 33,554,432 B; F8_E4M3 4096x4096: 16,777,216 B; its F32 32x32 block scales
    // (weight_scale_inv, one per 128x128 block): 4,096 B. Weights: 2 * 16,777,216 = 33,554,432.
    // Bits per weight: 50,335,744 * 8 / 33,554,432 = 12 + 32,768 / 33,554,432 = 12.0009765625.
    const std::string json =
        R"({"__metadata__": {"format": "pt"},
            "model.layers.0.self_attn.q_proj.weight": {"dtype": "BF16", "shape": [4096, 4096], "data_offsets": [0, 33554432]},
            "model.layers.0.mlp.up_proj.weight": {"dtype": "F8_E4M3", "shape": [4096, 4096], "data_offsets": [33554432, 50331648]},
            "model.layers.0.mlp.up_proj.weight_scale_inv": {"dtype": "F32", "shape": [32, 32], "data_offsets": [50331648, 50335744]}})";
    write_safetensors(folder / "model.safetensors", json, 50335744);
    const auto summary = profiles::read_safetensors_header((folder / "model.safetensors").string());
    CHECK(summary.tensors == 3);
    CHECK(summary.bytes == 50335744.0);
    CHECK(summary.bytes_by_dtype.at("BF16") == 33554432.0);
    CHECK(summary.bytes_by_dtype.at("F8_E4M3") == 16777216.0);
    CHECK(summary.scale_bytes == 4096.0);
    CHECK(summary.weights == 33554432.0);
    CHECK(*summary.bits_per_weight() == doctest::Approx(12.0009765625));

    // MXFP4 experts as GPT-OSS ships them: U8 blocks (two 4-bit values a byte) and U8 scales (one
    // per 32 weights). 64 x 16 bytes = 2,048 weights in 1,024 B, 64 B of scales: 4.25 bits per weight.
    const std::string mxfp4 =
        R"({"mlp.experts.down_proj_blocks": {"dtype": "U8", "shape": [64, 16], "data_offsets": [0, 1024]},
            "mlp.experts.down_proj_scales": {"dtype": "U8", "shape": [64], "data_offsets": [1024, 1088]}})";
    write_safetensors(folder / "experts.safetensors", mxfp4, 1088);
    const auto experts = profiles::read_safetensors_header((folder / "experts.safetensors").string());
    CHECK(experts.weights == 2048.0);
    CHECK(*experts.bits_per_weight() == doctest::Approx(4.25));
    // GPTQ's I32 qweight packs weights in a way the name does not say: no bits per weight is claimed.
    write_safetensors(folder / "gptq.safetensors",
                      R"({"l.qweight": {"dtype": "I32", "shape": [512, 4096], "data_offsets": [0, 8388608]}})", 8388608);
    CHECK_FALSE(profiles::read_safetensors_header((folder / "gptq.safetensors").string()).bits_per_weight());
}

TEST_CASE("import: hostile or truncated safetensors headers are refused with what is wrong") {
    const fs::path folder = scratch("bad-safetensors");
    using Lines = std::vector<std::string>;
    const auto refused = [&](const std::string& bytes, const std::string& name) {
        const fs::path path = folder / name;
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        return error_messages([&] { profiles::read_safetensors_header(path.string()); });
    };
    CHECK(refused("abc", "short.safetensors") ==
          Lines{(folder / "short.safetensors").string() +
                ": error: truncated: shorter than the 8-byte safetensors header length"});
    // A header length of 2^56 bytes.
    CHECK(refused(std::string("\0\0\0\0\0\0\0\1", 8), "huge.safetensors") ==
          Lines{(folder / "huge.safetensors").string() +
                ": error: the header claims 72057594037927936 bytes; safetensors allows at most 100000000 (not a "
                "safetensors file?)"});
    // 100 bytes announced, 2 present.
    CHECK(refused(std::string("\x64\0\0\0\0\0\0\0{}", 10), "cut.safetensors") ==
          Lines{(folder / "cut.safetensors").string() +
                ": error: truncated: the header claims 100 bytes but the file holds 2 after the length"});
    // Offsets beyond the data (the file holds none).
    const std::string json = R"({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}})";
    std::string length;
    GgufWriter::put(length, json.size(), 8);
    CHECK(refused(length + json, "offsets.safetensors") ==
          Lines{(folder / "offsets.safetensors").string() +
                ": error: w: data_offsets [0, 4] lie outside the 0 bytes of data in the file (an incomplete download?)"});
}

TEST_CASE("import: a model folder with config.json and safetensors shards reports what the shards store") {
    const fs::path folder = scratch("Tiny-FP8");
    fs::copy_file(decodesim::testing::test_data("hf_configs/llama-3.1-8b.json"), folder / "config.json");
    // Two shards listed by the index: a BF16 embedding of 128256 x 4096 (1,050,673,152 B) and an
    // FP8 matrix of 4096 x 4096 (16,777,216 B). Weights: 525,336,576 + 16,777,216 = 542,113,792.
    // Bits: (1,050,673,152 + 16,777,216) * 8 / 542,113,792 = 8,539,602,944 / 542,113,792.
    write_safetensors(folder / "model-00001-of-00002.safetensors",
                      R"({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [128256, 4096], "data_offsets": [0, 1050673152]}})",
                      1050673152);
    write_safetensors(folder / "model-00002-of-00002.safetensors",
                      R"({"model.layers.0.mlp.up_proj.weight": {"dtype": "F8_E4M3", "shape": [4096, 4096], "data_offsets": [0, 16777216]}})",
                      16777216);
    std::ofstream(folder / "model.safetensors.index.json")
        << R"({"metadata": {"total_size": 1067450368}, "weight_map": {
               "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
               "model.layers.0.mlp.up_proj.weight": "model-00002-of-00002.safetensors"}})";
    const auto catalog = decodesim::testing::shipped_catalog();
    const auto model = catalog.model(folder.string());
    CHECK(model.id == "Tiny-FP8");
    CHECK(model.hidden_size == 4096);
    CHECK(*model.checkpoint_bytes == 1067450368.0);
    CHECK(*model.checkpoint_parameters == 542113792.0);
    CHECK(*model.checkpoint_bits_per_weight == doctest::Approx(8539602944.0 / 542113792.0));
    CHECK(model.checkpoint_weights == nullptr);  // the config states no quantization_config

    // With the shards gone, the index's total_size still gives the bytes, and nothing else.
    fs::remove(folder / "model-00002-of-00002.safetensors");
    const auto index_only = catalog.model(folder.string());
    CHECK(*index_only.checkpoint_bytes == 1067450368.0);
    CHECK_FALSE(index_only.checkpoint_bits_per_weight.has_value());
}

TEST_CASE("import: a folder of several unrelated .gguf files asks which one") {
    const fs::path folder = scratch("two-quants");
    llama_8b_gguf().write(folder / "a-Q4_K_M.gguf");
    llama_8b_gguf().write(folder / "a-Q8_0.gguf");
    const auto messages = error_messages([&] { decodesim::testing::shipped_catalog().model(folder.string()); });
    CHECK(messages == std::vector<std::string>{
                          folder.string() + ": error: holds 2 .gguf files (a-Q4_K_M.gguf, a-Q8_0.gguf) that are not the "
                                            "shards of one checkpoint; pass the one meant: --model " +
                          (folder / "a-Q4_K_M.gguf").string()});
    // The CLI predicts from a .gguf path, in the checkpoint's format.
    const auto result = decodesim::testing::run(
        {"predict", "--hardware", "h100-sxm", "--model", (folder / "a-Q4_K_M.gguf").string(), "--json"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    CHECK(nlohmann::json::parse(result.out)["conditions"]["weights"] == "q4_k_m");
}

TEST_CASE("import: config.json gives the shape even beside a GGUF of an architecture decodesim does not map") {
    // The folder's documented precedence: config.json first, the checkpoint files only for what
    // they store. A GGUF whose architecture has no mapping adds its bytes and format, nothing else.
    const fs::path folder = scratch("config-beside-unmapped-gguf");
    fs::copy_file(decodesim::testing::test_data("hf_configs/llama-3.1-8b.json"), folder / "config.json",
                  fs::copy_options::overwrite_existing);
    GgufWriter gguf = llama_8b_gguf();
    gguf.kvs.clear();
    gguf.kv_count = 0;
    gguf.text("general.architecture", "some-new-arch");
    gguf.u32("general.file_type", 15);
    gguf.write(folder / "model.gguf");
    const auto model = decodesim::testing::shipped_catalog().model(folder.string());
    CHECK(model.num_hidden_layers == 32);  // config.json's
    // The GGUF's two tensors: 4096 x 128256 in Q4_K and again in Q6_K.
    CHECK(*model.checkpoint_parameters == doctest::Approx(2.0 * 4096 * 128256));
}

TEST_CASE("import: a config.json that is a link loop, a FIFO or a folder is named as such") {
    const fs::path loop = scratch("config-loop");
    fs::remove(loop / "config.json");
    fs::create_symlink("config.json", loop / "config.json");
    const auto looped = error_messages([&] { decodesim::testing::shipped_catalog().model(loop.string()); });
    CHECK(looped == std::vector<std::string>{(loop / "config.json").string() +
                                             ": error: a loop of symbolic links; it never reaches a file"});
    const fs::path inner = scratch("config-folder");
    fs::create_directories(inner / "config.json");
    const auto folder = error_messages([&] { decodesim::testing::shipped_catalog().model(inner.string()); });
    CHECK(folder == std::vector<std::string>{(inner / "config.json").string() + ": error: a folder; expected a regular file"});
}

TEST_CASE("import: a safetensors dtype the format does not define is refused") {
    const fs::path folder = scratch("odd-dtype");
    write_safetensors(folder / "model.safetensors", R"({"w": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 1]}})", 1);
    const auto messages = error_messages([&] { profiles::read_safetensors_header((folder / "model.safetensors").string()); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("w: dtype 'Q4' is not one the safetensors format defines") != std::string::npos);
}

TEST_CASE("import: layer kinds a family's import does not model are refused, not read as full attention") {
    // A plain qwen3 config whose layer_types mark 24 of 32 layers linear attention.
    auto config = nlohmann::json::parse(decodesim::testing::read_file(decodesim::testing::test_data("hf_configs/llama-3.1-8b.json")));
    config["model_type"] = "qwen3";
    config["architectures"] = {"Qwen3ForCausalLM"};
    config["head_dim"] = 128;
    config["layer_types"] = nlohmann::json::array();
    for (int i = 0; i < 32; ++i) config["layer_types"].push_back(i % 4 == 3 ? "full_attention" : "linear_attention");
    const fs::path path = scratch("qwen3-linear") / "config.json";
    std::ofstream(path) << config.dump(1);
    const auto messages = error_messages([&] { profiles::load_hf_config(path.string()); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("layer_types: 24 layers of kind 'linear_attention', which model_type 'qwen3' does not have here") !=
          std::string::npos);
    // All full attention is what the import reads: accepted.
    for (auto& kind : config["layer_types"]) kind = "full_attention";
    std::ofstream(path) << config.dump(1);
    CHECK(profiles::load_hf_config(path.string()).num_hidden_layers == 32);
}

namespace {

// A hub cache as huggingface_hub lays it out: refs/main names the snapshot, whose config.json is a
// link into blobs/.
fs::path fake_hub_cache(const std::string& name, const std::string& repo_folder, const std::string& hash) {
    const fs::path cache = scratch(name);
    const fs::path repo = cache / repo_folder;
    fs::create_directories(repo / "refs");
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots" / hash);
    std::ofstream(repo / "refs" / "main") << hash << "\n";
    fs::copy_file(decodesim::testing::test_data("hf_configs/llama-3.1-8b.json"), repo / "blobs" / "0f1e2d");
    fs::create_symlink("../../blobs/0f1e2d", repo / "snapshots" / hash / "config.json");
    return cache;
}

}  // namespace

TEST_CASE("import: the Hugging Face cache folder follows huggingface_hub's precedence") {
    using profiles::hf_hub_cache_folder;
    CHECK(hf_hub_cache_folder("/c", "/h", "/x", "/home/u") == "/c");
    CHECK(hf_hub_cache_folder(nullptr, "/h", "/x", "/home/u") == "/h/hub");
    CHECK(hf_hub_cache_folder("", "/h", "/x", "/home/u") == "/h/hub");  // set but empty counts as unset
    CHECK(hf_hub_cache_folder(nullptr, nullptr, "/x", "/home/u") == "/x/huggingface/hub");
    CHECK(hf_hub_cache_folder(nullptr, nullptr, nullptr, "/home/u") == "/home/u/.cache/huggingface/hub");
    CHECK(hf_hub_cache_folder(nullptr, nullptr, nullptr, nullptr).empty());

    CHECK(profiles::is_hf_repo_id("Qwen/Qwen3-32B"));
    CHECK(profiles::is_hf_repo_id("meta-llama/Llama-3.1-8B-Instruct"));
    CHECK(profiles::is_hf_repo_id("unsloth/DeepSeek-R1_0528.v2"));
    CHECK_FALSE(profiles::is_hf_repo_id("qwen3-32b"));             // a shipped id
    CHECK_FALSE(profiles::is_hf_repo_id("models/llama.yaml"));     // a profile path
    CHECK_FALSE(profiles::is_hf_repo_id("a/b/config.json"));
    CHECK_FALSE(profiles::is_hf_repo_id("/abs/path"));
    CHECK_FALSE(profiles::is_hf_repo_id("./Qwen"));
    CHECK_FALSE(profiles::is_hf_repo_id("Qwen/"));
    CHECK(profiles::hf_cache_repo_folder("/c", "Qwen/Qwen3-32B") == "/c/models--Qwen--Qwen3-32B");
}

TEST_CASE("import: --model ORG/NAME resolves through a Hugging Face cache built by the test") {
    const fs::path cache = fake_hub_cache("hub-one", "models--acme--Tiny-Llama-8B", "4f2a9c0d");
    const profiles::Catalog catalog(DECODESIM_ROOT, cache.string());
    const auto model = catalog.model("acme/Tiny-Llama-8B");
    // The snapshot's config.json is the Llama-3.1-8B config: 32 layers, hidden 4096.
    CHECK(model.id == "Tiny-Llama-8B");  // the repository names it, not the snapshot hash
    CHECK(model.num_hidden_layers == 32);
    CHECK(model.hidden_size == 4096);

    // On the command line, through HF_HUB_CACHE (restored after).
    const char* before = std::getenv("HF_HUB_CACHE");
    const std::string saved = before ? before : "";
    ::setenv("HF_HUB_CACHE", cache.string().c_str(), 1);
    const auto run = decodesim::testing::run({"predict", "--hardware", "h100-sxm", "--model", "acme/Tiny-Llama-8B",
                                              "--prompt", "100", "--output", "10", "--json"});
    const auto missing = decodesim::testing::run({"predict", "--hardware", "h100-sxm", "--model", "Qwen/Qwen3-8B"});
    if (before) ::setenv("HF_HUB_CACHE", saved.c_str(), 1); else ::unsetenv("HF_HUB_CACHE");
    CHECK_MESSAGE(run.exit_code == 0, run.err);
    CHECK(run.out.find("Tiny-Llama-8B") != std::string::npos);
    // Not cached: the error says where it looked and offers the shipped profile of that name.
    CHECK(missing.exit_code != 0);
    CHECK(missing.err.find((cache / "models--Qwen--Qwen3-8B").string()) != std::string::npos);
    CHECK(missing.err.find("--model qwen3-8b") != std::string::npos);
}

TEST_CASE("import: a hub cache with several snapshots and no refs/main is refused, not guessed") {
    const fs::path cache = fake_hub_cache("hub-two", "models--acme--Tiny", "aaaa1111");
    const fs::path repo = cache / "models--acme--Tiny";
    fs::create_directories(repo / "snapshots" / "bbbb2222");
    fs::remove(repo / "refs" / "main");
    const profiles::Catalog catalog(DECODESIM_ROOT, cache.string());
    const auto messages = error_messages([&] { catalog.model("acme/Tiny"); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("2 snapshots (aaaa1111, bbbb2222)") != std::string::npos);

    // refs/main naming a snapshot that is not there (an interrupted download) is named as such.
    std::ofstream(repo / "refs" / "main") << "cccc3333";
    const auto dangling = error_messages([&] { catalog.model("acme/Tiny"); });
    REQUIRE(dangling.size() == 1);
    CHECK(dangling[0].find("names snapshot cccc3333") != std::string::npos);
}

// A per-tensor mix (as unsloth's dynamic quants are) whose file type says IQ2_XXS: run in its own
// format, the weights are priced tensor by tensor as the file stores them, not by IQ2_XXS's rules.
// Shape: 2 layers, hidden 256, 4 heads x 64, 2 KV heads, FFN 512, vocabulary 1024. By hand:
//   attn_q, attn_output 256 x 256 = 65,536 weights in Q8_0 (34 B / 32): 69,632 B each;
//   attn_k, attn_v 256 x 128 = 32,768 in Q8_0: 34,816 B each; attention 208,896 B a layer.
//   ffn_gate, ffn_up 256 x 512 = 131,072 in IQ4_XS (136 B / 256): 69,632 B each, 139,264 a layer.
//   ffn_down 131,072: layer 0 Q6_K (210 B / 256) 107,520 B, layer 1 IQ2_XXS (66 B / 256) 33,792 B.
//   norms F16: 2 x 256 x 2 B = 1,024 B a layer, and 512 B for the output norm.
//   token_embd 256 x 1024 in Q4_K (144 B / 256) 147,456 B; output in Q6_K 215,040 B.
// Layer 0: 456,704 B; layer 1: 382,976 B; total 456,704 + 382,976 + 147,456 + 215,040 + 512 = 1,202,688 B.
TEST_CASE("import: a GGUF of mixed tensor types is priced tensor by tensor as stored") {
    constexpr std::uint32_t kQ8_0 = 8, kIQ4_XS = 23, kIQ2_XXS = 16;
    GgufWriter gguf;
    gguf.text("general.architecture", "llama");
    gguf.u32("general.file_type", 19);  // LLAMA_FTYPE_MOSTLY_IQ2_XXS
    gguf.u32("llama.block_count", 2);
    gguf.u32("llama.context_length", 4096);
    gguf.u32("llama.embedding_length", 256);
    gguf.u32("llama.feed_forward_length", 512);
    gguf.u32("llama.attention.head_count", 4);
    gguf.u32("llama.attention.head_count_kv", 2);
    gguf.tokens(1024);
    gguf.tensor("token_embd.weight", {256, 1024}, kQ4_K, 147456);
    gguf.tensor("output.weight", {256, 1024}, kQ6_K, 215040);
    gguf.tensor("output_norm.weight", {256}, kF16, 512);
    for (int layer = 0; layer < 2; ++layer) {
        const std::string blk = fmt::format("blk.{}.", layer);
        gguf.tensor(blk + "attn_q.weight", {256, 256}, kQ8_0, 69632);
        gguf.tensor(blk + "attn_k.weight", {256, 128}, kQ8_0, 34816);
        gguf.tensor(blk + "attn_v.weight", {256, 128}, kQ8_0, 34816);
        gguf.tensor(blk + "attn_output.weight", {256, 256}, kQ8_0, 69632);
        gguf.tensor(blk + "ffn_gate.weight", {256, 512}, kIQ4_XS, 69632);
        gguf.tensor(blk + "ffn_up.weight", {256, 512}, kIQ4_XS, 69632);
        gguf.tensor(blk + "ffn_down.weight", {512, 256}, layer == 0 ? kQ6_K : kIQ2_XXS, layer == 0 ? 107520 : 33792);
        gguf.tensor(blk + "attn_norm.weight", {256}, kF16, 512);
        gguf.tensor(blk + "ffn_norm.weight", {256}, kF16, 512);
    }
    const fs::path folder = scratch("mixed-gguf");
    gguf.write(folder / "tiny-ud-iq2_xxs.gguf");
    const std::string path = (folder / "tiny-ud-iq2_xxs.gguf").string();
    const auto stored = decodesim::testing::run({"predict", "--hardware", "h100-sxm", "--model", path, "--json"});
    REQUIRE_MESSAGE(stored.exit_code == 0, stored.err);
    const auto point = nlohmann::json::parse(stored.out);
    CHECK(point["conditions"]["weights"] == "iq2_xxs");
    CHECK(point["memory"]["weights_bytes"].get<double>() == 1202688.0);
    CHECK(stored.err.find("the checkpoint's files hold") == std::string::npos);  // nothing to reconcile
    // Another format asked for is priced by its rules: every matrix in Q8_0 but the output (Q8_0
    // keeps it Q8_0): (2 x (65,536 x 2 + 32,768 x 2 + 131,072 x 3) + 2 x 262,144) = 1,703,936
    // weights x 34 / 32 = 1,810,432 B, + 2,560 B of norms = 1,812,992 B.
    const auto q8 = decodesim::testing::run({"predict", "--hardware", "h100-sxm", "--model", path, "--weights", "q8_0", "--json"});
    REQUIRE_MESSAGE(q8.exit_code == 0, q8.err);
    CHECK(nlohmann::json::parse(q8.out)["memory"]["weights_bytes"].get<double>() == 1812992.0);
}

namespace {

// The GGUF header llama.cpp's converter writes for a model (conversion/*.py: <arch>.block_count
// from num_hidden_layers, embedding_length from hidden_size, and so on), with the token list's
// length as the vocabulary and an output.weight when the model does not tie it.
struct ArchFile {
    std::string arch;
    std::vector<std::pair<std::string, std::uint32_t>> keys;  // without the "<arch>." prefix
    std::uint64_t vocabulary;
    std::uint64_t hidden;
    bool tied;
};

profiles::ModelProfile read_arch_file(const ArchFile& file) {
    GgufWriter gguf;
    gguf.text("general.architecture", file.arch);
    for (const auto& [key, value] : file.keys) gguf.u32(file.arch + "." + key, static_cast<std::uint32_t>(value));
    gguf.tokens(file.vocabulary);
    gguf.tensor("token_embd.weight", {file.hidden, file.vocabulary}, kQ6_K, file.hidden * file.vocabulary / 256 * 210);
    if (!file.tied) gguf.tensor("output.weight", {file.hidden, file.vocabulary}, kQ6_K, file.hidden * file.vocabulary / 256 * 210);
    return profiles::model_from_gguf({profiles::parse_gguf_header(gguf.header(), gguf.file_size(), file.arch + ".gguf")});
}

}  // namespace

// Each architecture's keys, as its config.json gives them (the shipped profiles' sources), read
// back into the same shape: the same parameter count and cache bytes as the shipped profile.
TEST_CASE("import: gemma2, gemma3, phi3, mistral3, deepseek2 and glm4moe GGUF headers map to their models") {
    const auto catalog = decodesim::testing::shipped_catalog();
    struct Case {
        const char* profile;
        ArchFile file;
    };
    const std::vector<Case> cases = {
        // gemma-2-9b: 42 layers, hidden 3584, FFN 14336, 16 heads, 8 KV heads, head_dim 256,
        // window 4096 (every second layer global: llama.cpp's fixed pattern), tied.
        {"gemma-2-9b", {"gemma2", {{"block_count", 42}, {"context_length", 8192}, {"embedding_length", 3584},
                                   {"feed_forward_length", 14336}, {"attention.head_count", 16},
                                   {"attention.head_count_kv", 8}, {"attention.key_length", 256},
                                   {"attention.sliding_window", 4096}}, 256000, 3584, true}},
        // gemma-3-27b: 62 layers, hidden 5376, FFN 21504, 32 heads, 16 KV, head_dim 128, window 1024
        // (every sixth layer global), tied; the file's vocabulary is the config's 262,208.
        {"gemma-3-27b", {"gemma3", {{"block_count", 62}, {"context_length", 131072}, {"embedding_length", 5376},
                                    {"feed_forward_length", 21504}, {"attention.head_count", 32},
                                    {"attention.head_count_kv", 16}, {"attention.key_length", 128},
                                    {"attention.sliding_window", 1024}}, 262208, 5376, true}},
        // phi-4: 40 layers, hidden 5120, FFN 17920, 40 heads, 10 KV (head_dim 5120 / 40 = 128), untied.
        {"phi-4", {"phi3", {{"block_count", 40}, {"context_length", 16384}, {"embedding_length", 5120},
                            {"feed_forward_length", 17920}, {"attention.head_count", 40},
                            {"attention.head_count_kv", 10}, {"attention.sliding_window", 0}}, 100352, 5120, false}},
        // Mistral Small 3.2: 40 layers, hidden 5120, FFN 32768, 32 heads, 8 KV, head_dim 128.
        {"mistral-small-3.2-24b", {"mistral3", {{"block_count", 40}, {"context_length", 131072},
                                                {"embedding_length", 5120}, {"feed_forward_length", 32768},
                                                {"attention.head_count", 32}, {"attention.head_count_kv", 8},
                                                {"attention.key_length", 128}}, 131072, 5120, false}},
        // DeepSeek-V3 as the split-MLA converter writes it: head_count_kv 1, key_length 576
        // (512 + 64) and key_length_mla 192 (128 + 64), value_length_mla 128; 256 experts of 2048,
        // 8 per token, 1 shared, 3 dense leading layers of 18432.
        {"deepseek-v3", {"deepseek2", {{"block_count", 61}, {"context_length", 163840}, {"embedding_length", 7168},
                                       {"feed_forward_length", 18432}, {"attention.head_count", 128},
                                       {"attention.head_count_kv", 1}, {"attention.key_length", 576},
                                       {"attention.value_length", 512}, {"attention.key_length_mla", 192},
                                       {"attention.value_length_mla", 128}, {"attention.q_lora_rank", 1536},
                                       {"attention.kv_lora_rank", 512}, {"rope.dimension_count", 64},
                                       {"expert_count", 256}, {"expert_used_count", 8},
                                       {"expert_feed_forward_length", 2048}, {"expert_shared_count", 1},
                                       {"leading_dense_block_count", 3}}, 129280, 7168, false}},
        // GLM-4.5: block_count 93 = 92 layers + 1 NextN block; 160 experts of 1536, 8 per token, 1
        // shared, 3 dense leading layers of 12288; 96 heads, 8 KV, head_dim 128.
        {"glm-4.5", {"glm4moe", {{"block_count", 93}, {"context_length", 131072}, {"embedding_length", 5120},
                                 {"feed_forward_length", 12288}, {"attention.head_count", 96},
                                 {"attention.head_count_kv", 8}, {"attention.key_length", 128},
                                 {"expert_count", 160}, {"expert_used_count", 8}, {"expert_feed_forward_length", 1536},
                                 {"expert_shared_count", 1}, {"leading_dense_block_count", 3},
                                 {"nextn_predict_layers", 1}}, 151552, 5120, false}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.profile);
        const auto imported = read_arch_file(c.file);
        const auto shipped = catalog.model(c.profile);
        CHECK(imported.num_hidden_layers == shipped.num_hidden_layers);
        CHECK(imported.hidden_act == shipped.hidden_act);
        CHECK(imported.tie_word_embeddings == shipped.tie_word_embeddings);
        // llama.cpp's deepseek2 converter drops the MTP layer (skip_mtp); GLM keeps its NextN block.
        CHECK(imported.mtp_layers == (c.file.arch == "deepseek2" ? 0 : shipped.mtp_layers));
        CHECK(decodesim::engine::count_parameters(imported).total ==
              doctest::Approx(decodesim::engine::count_parameters(shipped).total).epsilon(1e-12));
        CHECK(decodesim::engine::count_parameters(imported).active ==
              doctest::Approx(decodesim::engine::count_parameters(shipped).active).epsilon(1e-12));
        REQUIRE(imported.sliding_window.has_value() == shipped.sliding_window.has_value());
        if (shipped.sliding_window) {
            CHECK(imported.sliding_window->window == shipped.sliding_window->window);
            CHECK(imported.sliding_window->pattern == shipped.sliding_window->pattern);
        }
        REQUIRE(imported.mla.has_value() == shipped.mla.has_value());
        if (shipped.mla) {
            CHECK(imported.mla->kv_lora_rank == 512);
            CHECK(imported.mla->qk_nope_head_dim == 128);  // 192 - 64
            CHECK(imported.mla->v_head_dim == 128);
        }
    }
}
