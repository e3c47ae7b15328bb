#include "profiles/hf_config.hpp"

#include <cctype>

#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <set>
#include <functional>

#include "core/error.hpp"
#include "core/units.hpp"
#include "core/suggest.hpp"
#include "core/text_escape.hpp"
#include "profiles/model_loader.hpp"
#include "profiles/profile_id.hpp"
#include "profiles/model_limits.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace {

// Reads fields of a config.json object. Unlike a profile, a config.json carries many keys we
// do not need, so unknown keys are ignored; wrong types and bad values are still errors.
class ConfigReader {
public:
    // A key given twice is refused: Python's json module (and so transformers) keeps the last value,
    // yaml-cpp the first, and a silent choice between two shapes is a silently wrong answer.
    ConfigReader(YAML::Node node, std::string file, std::vector<core::Diagnostic>& diagnostics)
        : node_(std::move(node)), file_(std::move(file)), diagnostics_(&diagnostics) {
        if (!node_.IsMap()) return;
        std::map<std::string, std::string> seen;
        for (const auto& entry : node_) {
            const std::string key = entry.first.Scalar();
            const std::string value = entry.second.IsScalar() ? entry.second.Scalar() : "(an object or a list)";
            if (const auto [where, inserted] = seen.emplace(key, value); !inserted) {
                diagnostics_->push_back({location_of_node(file_, entry.first), key,
                                         fmt::format("duplicate key (first '{}', then '{}'); transformers would take "
                                                     "the last, decodesim refuses to guess: keep one",
                                                     where->second, value)});
            }
        }
    }

    bool has(const char* key) const { return node_[key] && !node_[key].IsNull(); }

    core::SourceLocation locate(const std::string& key) const {
        if (node_[key]) return location_of_node(file_, node_[key]);
        return location_of_node(file_, node_);
    }

    void fail(const std::string& key, const std::string& message) {
        diagnostics_->push_back({locate(key), key, message});
    }

    // A non-empty list of whole numbers from `minimum` up to the key's limit (a per-layer list).
    std::optional<std::vector<int>> integers(const char* key, bool required, std::int64_t minimum) {
        if (!has(key)) {
            if (required) fail(key, "missing required key; expected a list of whole numbers");
            return std::nullopt;
        }
        const YAML::Node list = node_[key];
        const std::int64_t maximum = model_size_limit(key);
        if (!list.IsSequence() || list.size() == 0) {
            fail(key, "expected a non-empty list of whole numbers");
            return std::nullopt;
        }
        std::vector<int> values;
        for (std::size_t i = 0; i < list.size(); ++i) {
            std::int64_t value = 0;
            if (!list[i].IsScalar() || !core::parse_whole_number(list[i].Scalar(), value) || value < minimum ||
                value > maximum) {
                fail(key, fmt::format("entry {}: expected a whole number from {} to {}", i, minimum, maximum));
                return std::nullopt;
            }
            values.push_back(static_cast<int>(value));
        }
        return values;
    }

    // A size of the model's shape, within the same range a YAML model profile allows (profiles/model_limits.hpp).
    std::optional<std::int64_t> integer(const char* key, bool required, std::int64_t minimum = 1) {
        if (!has(key)) {
            if (required) fail(key, "missing required key; expected a whole number");
            return std::nullopt;
        }
        std::int64_t value = 0;
        const YAML::Node field = node_[key];
        const std::int64_t maximum = model_size_limit(key);
        if (!field.IsScalar() || !core::parse_whole_number(field.Scalar(), value) || value < minimum || value > maximum) {
            fail(key, fmt::format("expected a whole number from {} to {}, found '{}'", minimum, maximum,
                                  field.IsScalar() ? field.Scalar() : std::string("a list or an object")));
            return std::nullopt;
        }
        return value;
    }

    std::optional<std::string> text(const char* key, bool required) {
        if (!has(key)) {
            if (required) fail(key, "missing required key; expected a string");
            return std::nullopt;
        }
        if (!node_[key].IsScalar()) {
            fail(key, "expected a string");
            return std::nullopt;
        }
        return core::printable(node_[key].Scalar());  // names reach terminals: no control characters
    }

    std::optional<bool> boolean(const char* key) {
        if (!has(key)) return std::nullopt;
        const std::string value = node_[key].IsScalar() ? node_[key].Scalar() : "";
        if (value == "true") return true;
        if (value == "false") return false;
        fail(key, "expected true or false");
        return std::nullopt;
    }

    const YAML::Node& node() const { return node_; }
    const std::string& file() const { return file_; }

private:
    YAML::Node node_;
    std::string file_;
    std::vector<core::Diagnostic>* diagnostics_;
};

enum class Family {
    llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, phi3, gemma, gemma2, gemma3, deepseek, gpt_oss,
    qwen3_next, qwen3_5, jamba, llama4, glm4_moe, minimax_m2, nemotron_h
};

struct FamilyEntry {
    const char* model_type;
    Family family;
};

constexpr FamilyEntry kFamilies[] = {
    {"llama", Family::llama},          {"mistral", Family::mistral},       {"mixtral", Family::mixtral},
    {"qwen2", Family::qwen2},          {"qwen2_moe", Family::qwen2_moe},   {"qwen3", Family::qwen3},
    {"qwen3_moe", Family::qwen3_moe},  {"phi3", Family::phi3},             {"gemma", Family::gemma},
    {"gemma2", Family::gemma2},        {"gemma3", Family::gemma3},         {"gemma3_text", Family::gemma3},
    {"deepseek_v2", Family::deepseek}, {"deepseek_v3", Family::deepseek},  {"gpt_oss", Family::gpt_oss},
    {"deepseek_v32", Family::deepseek}, {"kimi_k2", Family::deepseek},     {"qwen3_next", Family::qwen3_next},
    {"jamba", Family::jamba},          {"llama4", Family::llama4},         {"llama4_text", Family::llama4},
    {"glm4_moe", Family::glm4_moe},    {"minimax_m2", Family::minimax_m2},
    // Qwen3.5: Qwen3-Next's gated-attention and Gated DeltaNet hybrid, MoE and dense (the language
    // model in text_config). GLM-5 (GlmMoeDsa): DeepSeek's MLA and sparse attention with DeepSeek's keys.
    {"qwen3_5_moe", Family::qwen3_next}, {"qwen3_5_moe_text", Family::qwen3_next},
    {"qwen3_5", Family::qwen3_5},        {"qwen3_5_text", Family::qwen3_5},
    {"glm_moe_dsa", Family::deepseek},   {"qwen2_5_vl", Family::qwen2},      {"qwen2_5_vl_text", Family::qwen2},
    // DeepSeek-V4: DeepSeek's MoE and indexer keys around compressed attention (compress_ratios).
    {"deepseek_v4", Family::deepseek},
    // Llama 3.2 Vision: a Llama language model in text_config with cross_attention_layers, and a
    // tiled vision encoder in vision_config.
    {"mllama", Family::llama},
    // Nemotron-H (Nemotron-3 Nano and Super): single-block layers of Mamba-2, attention and MoE.
    {"nemotron_h", Family::nemotron_h},
};

// Qwen3-Next and Qwen3.5: every full_attention_interval-th layer gated attention, the rest Gated DeltaNet.
bool is_gated_delta_hybrid(Family family) { return family == Family::qwen3_next || family == Family::qwen3_5; }

// Turns a per-layer list of layer types into (period, offset) such that layer i is of type
// `attention` iff i % period == offset (Qwen3-Next "full_attention" among "linear_attention").
std::optional<std::pair<int, int>> attention_period_from_layer_types(const YAML::Node& layer_types,
                                                                     const std::string& attention) {
    if (!layer_types || !layer_types.IsSequence() || layer_types.size() == 0) return std::nullopt;
    std::vector<bool> attends;
    for (const auto& type : layer_types) attends.push_back(type.IsScalar() && type.Scalar() == attention);
    int first = -1, second = -1;
    for (std::size_t i = 0; i < attends.size(); ++i) {
        if (!attends[i]) continue;
        if (first < 0) {
            first = static_cast<int>(i);
        } else {
            second = static_cast<int>(i);
            break;
        }
    }
    if (first < 0) return std::nullopt;
    const int period = second < 0 ? static_cast<int>(attends.size()) : second - first;
    if (first >= period) return std::nullopt;
    for (std::size_t i = 0; i < attends.size(); ++i) {
        if (attends[i] != (static_cast<int>(i) % period == first)) return std::nullopt;
    }
    return std::make_pair(period, first);
}

bool is_gemma(Family family) { return family == Family::gemma || family == Family::gemma2 || family == Family::gemma3; }

// What transformers' configuration class assumes for a key the file omits, where that differs from
// "required" (docs/robustness.md, "Gemma-3 and similar configs"). From the class definitions in
// transformers v4.50: GemmaConfig (16 heads, 16 KV heads, head_dim 256, vocabulary 256000),
// Gemma2Config (8, 4, 256, 256000) and Gemma3TextConfig (8, 4, 256, 262208). The Gemma 3 4B
// release's text_config omits all four. Unset: the key is required, or follows from others
// (KV heads = heads, head_dim = hidden / heads).
struct ClassDefaults {
    std::optional<int> attention_heads;
    std::optional<int> key_value_heads;
    std::optional<std::int64_t> head_dim;
    std::optional<std::int64_t> vocab_size;
};

ClassDefaults class_defaults(Family family) {
    switch (family) {
        case Family::gemma: return {16, 16, 256, 256000};
        case Family::gemma2: return {8, 4, 256, 256000};
        case Family::gemma3: return {8, 4, 256, 262208};
        default: return {};
    }
}

// Turns a per-layer list of "sliding_attention"/"full_attention" into our window pattern.
std::optional<int> pattern_from_layer_types(const YAML::Node& layer_types) {
    if (!layer_types.IsSequence() || layer_types.size() == 0) return std::nullopt;
    std::vector<bool> sliding;
    for (const auto& entry : layer_types) sliding.push_back(entry.Scalar() == "sliding_attention");
    bool all_sliding = true;
    for (bool s : sliding) all_sliding = all_sliding && s;
    if (all_sliding) return 0;
    int period = 0;
    for (std::size_t i = 0; i < sliding.size(); ++i) {
        if (!sliding[i]) {
            period = static_cast<int>(i) + 1;
            break;
        }
    }
    for (std::size_t i = 0; i < sliding.size(); ++i) {
        const bool global = (static_cast<int>(i) + 1) % period == 0;
        if (sliding[i] == global) return std::nullopt;
    }
    return period;
}

}  // namespace

const std::vector<std::string>& supported_model_types() {
    static const std::vector<std::string> types = [] {
        std::vector<std::string> names;
        for (const auto& entry : kFamilies) names.emplace_back(entry.model_type);
        return names;
    }();
    return types;
}

namespace {

const core::WeightFormat* format_named(std::string_view name) { return core::find_named(core::weight_formats(), name); }

std::string scalar_of(const YAML::Node& node, const char* key) {
    return node[key] && node[key].IsScalar() ? node[key].Scalar() : std::string();
}

std::string scalar_of_index(const YAML::Node& node, std::size_t index) {
    return node[index] && node[index].IsScalar() ? node[index].Scalar() : std::string("?");
}

// The weight format a quantization_config describes (transformers' quantizers: fp8, compressed-
// tensors, AWQ, GPTQ, bitsandbytes, MXFP4, ModelOpt), and a short description of what it said.
// Formats map to decodesim's nearest (docs/quantization.md): 4-bit integer schemes to int4
// (group 128), 8-bit integers to int8, FP8 with per-tensor or block scales to fp8. `expert_dtype`:
// what config.json says of the routed experts beside it ("fp4": DeepSeek-V4's MXFP4 experts, at
// the top level or in quantization_config).
std::pair<const core::WeightFormat*, std::string> checkpoint_format(const YAML::Node& config, std::string expert_dtype) {
    if (expert_dtype.empty()) expert_dtype = scalar_of(config, "expert_dtype");
    std::string method = scalar_of(config, "quant_method");
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string bits = scalar_of(config, "bits");
    if (method == "fp8" || method == "fbgemm_fp8") {
        // DeepSeek-style block scales (weight_block_size [128, 128]) cost 32 bits a block; other
        // block shapes map to the nearest format, the 128 x 128 one, and say so.
        const YAML::Node block = config["weight_block_size"];
        if (block && block.IsSequence() && block.size() == 2) {
            const std::string shape = fmt::format("{}x{}", scalar_of_index(block, 0), scalar_of_index(block, 1));
            if (expert_dtype == "fp4") {
                return {format_named("fp8_mxfp4_moe"), fmt::format("{} with {} block scales and fp4 experts", method, shape)};
            }
            return {format_named("fp8_block"), fmt::format("{} with {} block scales", method, shape)};
        }
        return {format_named("fp8"), method};
    }
    if (method == "mxfp4") return {format_named("mxfp4"), method};
    if (method == "awq" || method == "gptq") {
        if (bits == "4" || bits.empty()) return {format_named("int4"), method + " 4-bit"};
        if (bits == "8") return {format_named("int8"), method + " 8-bit"};
        return {nullptr, fmt::format("{} {}-bit", method, bits)};
    }
    if (method == "bitsandbytes") {
        if (scalar_of(config, "load_in_4bit") == "true") return {format_named("int4"), "bitsandbytes 4-bit"};
        if (scalar_of(config, "load_in_8bit") == "true") return {format_named("int8"), "bitsandbytes 8-bit"};
        return {nullptr, "bitsandbytes"};
    }
    if (method == "modelopt") {
        const std::string algorithm = scalar_of(config, "quant_algo");
        if (algorithm == "FP8") return {format_named("fp8"), "modelopt FP8"};
        if (algorithm == "NVFP4") return {format_named("nvfp4"), "modelopt NVFP4"};
        return {nullptr, "modelopt " + algorithm};
    }
    if (method == "compressed-tensors") {
        const std::string format = scalar_of(config, "format");
        if (format == "float-quantized" || format == "naive-quantized") {
            // The weights' own num_bits and type, from the first config group.
            const YAML::Node groups = config["config_groups"];
            if (groups && groups.IsMap()) {
                for (const auto& group : groups) {
                    const YAML::Node weights = group.second["weights"];
                    if (!weights || !weights.IsMap()) continue;
                    const std::string group_bits = scalar_of(weights, "num_bits");
                    const std::string type = scalar_of(weights, "type");
                    if (group_bits == "8" && type == "float") {
                        if (scalar_of(weights, "strategy") == "block") {
                            return {format_named("fp8_block"), "compressed-tensors fp8 with block scales"};
                        }
                        return {format_named("fp8"), "compressed-tensors fp8"};
                    }
                    if (group_bits == "8" && type == "int") return {format_named("int8"), "compressed-tensors int8"};
                    if (group_bits == "4" && type == "int") return {format_named("int4"), "compressed-tensors int4"};
                    return {nullptr, fmt::format("compressed-tensors {}-bit {}", group_bits, type)};
                }
            }
        }
        if (format == "float-quantized") return {format_named("fp8"), "compressed-tensors float-quantized"};
        if (format == "int-quantized") return {format_named("int8"), "compressed-tensors int-quantized"};
        if (format == "pack-quantized") return {format_named("int4"), "compressed-tensors pack-quantized"};
        if (format == "nvfp4-pack-quantized") return {format_named("nvfp4"), "compressed-tensors nvfp4"};
        return {nullptr, "compressed-tensors " + format};
    }
    return {nullptr, method.empty() ? std::string("no quant_method") : method};
}

// Llama 3.2 Vision (MllamaForConditionalGeneration): the text model's cross_attention_layers and
// the tiled encoder of vision_config, its parameters counted from transformers'
// modeling_mllama.py: the patch convolution (no bias), the class embedding, the gated position
// embeddings (a tile's states, and one per aspect-ratio row, tile and state), the pre- and
// post-tile embeddings, two LayerNorms, the local and the gated global layers (q, k, v, o without
// bias; fc1 and fc2 with; two LayerNorms), and the projector from vision_output_dim to the text
// model's hidden size.
void read_tiled_vision(const YAML::Node& document, ModelProfile& model, ConfigReader& top, ConfigReader& text,
                       const std::string& path, std::vector<core::Diagnostic>& diagnostics) {
    if (auto layers = text.integers("cross_attention_layers", true, 0)) model.cross_attention_layers = *layers;
    const YAML::Node node = document["vision_config"];
    if (!node || !node.IsMap()) {
        top.fail("vision_config", "missing: a mllama model's cross-attention layers read its vision encoder");
        return;
    }
    ConfigReader config(node, path, diagnostics);
    VisionEncoder vision;
    vision.source = path + " (vision_config)";
    vision.hidden_size = config.integer("hidden_size", true).value_or(0);
    const std::int64_t local = config.integer("num_hidden_layers", true).value_or(0);
    const std::int64_t global = config.integer("num_global_layers", true).value_or(0);
    vision.layers = static_cast<int>(local + global);
    vision.patch_size = config.integer("patch_size", true).value_or(0);
    vision.tile_size = config.integer("image_size", true).value_or(0);
    vision.max_tiles = static_cast<int>(config.integer("max_num_tiles", false).value_or(4));
    const double intermediate = static_cast<double>(config.integer("intermediate_size", true).value_or(0));
    const double output_dim = static_cast<double>(config.integer("vision_output_dim", true).value_or(0));
    const YAML::Node ratios = node["supported_aspect_ratios"];
    const double aspect_rows = (ratios && ratios.IsSequence() ? static_cast<double>(ratios.size()) : 8.0) + 1.0;
    if (vision.patch_size <= 0 || vision.tile_size < vision.patch_size) return;
    // The largest image: a square grid of the tiles.
    vision.image_size = vision.tile_size * static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(vision.max_tiles))));
    const double h = static_cast<double>(vision.hidden_size);
    const double p = static_cast<double>(vision.patch_size);
    const double tile_side = std::floor(static_cast<double>(vision.tile_size) / p);
    const double states = tile_side * tile_side + 1.0;
    const double tiles = vision.max_tiles;
    const double layer = 4.0 * h * h + 2.0 * h * intermediate + intermediate + h + 4.0 * h;
    vision.parameters = 3.0 * p * p * h + h + (states * h + aspect_rows * tiles * states * h + 1.0) +
                        2.0 * (aspect_rows * tiles * h + 1.0) + 4.0 * h + static_cast<double>(local) * layer +
                        static_cast<double>(global) * (layer + 2.0) +
                        output_dim * static_cast<double>(model.hidden_size) + static_cast<double>(model.hidden_size);
    model.vision = vision;
}

}  // namespace

ModelProfile load_hf_config(const std::string& path) { return parse_hf_config(read_input_file(path), path); }

ModelProfile parse_hf_config(const std::string& text, const std::string& path) {
    const YAML::Node document = parse_document(text, path);
    std::vector<core::Diagnostic> diagnostics;
    if (!document.IsMap()) {
        throw core::InputError(core::Diagnostic{location_of_node(path, document), "", "expected a JSON object"});
    }
    ConfigReader top(document, path, diagnostics);
    const auto model_type = top.text("model_type", true);
    if (!model_type) throw core::InputError(std::move(diagnostics));
    const auto family_of = [](const std::string& type) -> const FamilyEntry* {
        for (const auto& entry : kFamilies) {
            if (type == entry.model_type) return &entry;
        }
        return nullptr;
    };
    const FamilyEntry* family_entry = family_of(*model_type);
    // A vision-language wrapper (Mistral3ForConditionalGeneration, KimiK25ForConditionalGeneration)
    // keeps its language model, of a type decodesim reads, in text_config: that type decides.
    if (family_entry == nullptr && document["text_config"] && document["text_config"].IsMap() &&
        document["text_config"]["model_type"] && document["text_config"]["model_type"].IsScalar()) {
        family_entry = family_of(document["text_config"]["model_type"].Scalar());
    }
    if (family_entry == nullptr) {
        top.fail("model_type", fmt::format("unsupported model_type '{}'{}; supported: {}", *model_type,
                                           core::suggestion_note(*model_type, supported_model_types()),
                                           fmt::join(supported_model_types(), " ")));
        throw core::InputError(std::move(diagnostics));
    }
    const Family family = family_entry->family;
    // Gemma 3 multimodal configs keep the language model in text_config.
    ConfigReader config = document["text_config"] && document["text_config"].IsMap()
                              ? ConfigReader(document["text_config"], path, diagnostics)
                              : top;

    ModelProfile model;
    model.id = id_from_path(path);
    model.name = top.text("_name_or_path", false).value_or(model.id);
    model.source = path;
    model.num_hidden_layers = static_cast<int>(config.integer("num_hidden_layers", true).value_or(0));
    model.hidden_size = config.integer("hidden_size", true).value_or(0);
    // Keys a config.json may omit are read as the model class in transformers defaults them
    // (class_defaults), so a published config imports as its own library reads it.
    const ClassDefaults defaults = class_defaults(family);
    model.num_attention_heads =
        static_cast<int>(config.integer("num_attention_heads", !defaults.attention_heads).value_or(defaults.attention_heads.value_or(0)));
    model.num_key_value_heads = static_cast<int>(
        config.integer("num_key_value_heads", false).value_or(defaults.key_value_heads.value_or(model.num_attention_heads)));
    model.vocab_size = config.integer("vocab_size", !defaults.vocab_size).value_or(defaults.vocab_size.value_or(0));
    if (config.has("head_dim")) {
        model.head_dim = config.integer("head_dim", true).value_or(0);
    } else if (defaults.head_dim) {
        model.head_dim = *defaults.head_dim;
    } else if (model.num_attention_heads > 0) {
        model.head_dim = model.hidden_size / model.num_attention_heads;  // Llama, Mistral, Qwen2: hidden / heads
    }
    model.hidden_act = config.text(is_gemma(family) && config.has("hidden_activation") ? "hidden_activation" : "hidden_act",
                                   false)
                           .value_or(is_gemma(family) ? "gelu_pytorch_tanh" : "silu");
    // transformers defaults: Gemma ties embeddings, the others do not unless they say so.
    model.tie_word_embeddings =
        config.boolean("tie_word_embeddings").value_or(top.boolean("tie_word_embeddings").value_or(is_gemma(family)));
    model.max_position_embeddings = config.integer("max_position_embeddings", false);
    // DeepSeek and GLM name their multi-token-prediction layers num_nextn_predict_layers; Qwen3-Next
    // and Qwen3.5 mtp_num_hidden_layers.
    model.mtp_layers = static_cast<int>(
        config.integer("num_nextn_predict_layers", false, 0).value_or(config.integer("mtp_num_hidden_layers", false, 0).value_or(0)));

    const bool has_moe_dims = family == Family::mixtral || family == Family::qwen2_moe || family == Family::qwen3_moe ||
                              family == Family::gpt_oss || family == Family::deepseek || family == Family::qwen3_next ||
                              family == Family::jamba || family == Family::llama4 || family == Family::glm4_moe ||
                              family == Family::minimax_m2 || family == Family::nemotron_h;
    if (!has_moe_dims || family == Family::qwen2_moe || family == Family::deepseek || family == Family::qwen3_next ||
        family == Family::jamba || family == Family::glm4_moe) {
        model.intermediate_size = config.integer("intermediate_size", !has_moe_dims).value_or(0);
    }
    if (family == Family::llama4) model.intermediate_size = config.integer("intermediate_size_mlp", false).value_or(0);

    // Sliding windows.
    const bool window_declared = config.has("sliding_window");
    const bool window_disabled = config.boolean("use_sliding_window").value_or(true) == false;
    // DeepSeek-V4's sliding_window is the window its compressed attention keeps (below).
    const bool compressed = family == Family::deepseek && config.has("compress_ratios");
    if (window_declared && !window_disabled && !compressed && family != Family::qwen2 && family != Family::qwen3 &&
        family != Family::qwen3_moe && family != Family::qwen2_moe && !is_gated_delta_hybrid(family) &&
        family != Family::jamba && family != Family::nemotron_h) {
        SlidingWindow window;
        window.window = config.integer("sliding_window", true).value_or(0);
        if (config.has("layer_types")) {
            const auto pattern = pattern_from_layer_types(config.node()["layer_types"]);
            if (!pattern) config.fail("layer_types", "a mix of sliding and full layers that is not periodic is not supported");
            window.pattern = pattern.value_or(0);
        } else if (family == Family::gemma2) {
            window.pattern = 2;
        } else if (family == Family::gemma3) {
            window.pattern = static_cast<int>(config.integer("sliding_window_pattern", false).value_or(6));
        } else if (family == Family::gpt_oss) {
            window.pattern = 2;
        }
        if (window.window > 0) model.sliding_window = window;
    }

    if (has_moe_dims) {
        MixtureOfExperts moe;
        switch (family) {
            case Family::mixtral:
                moe.n_routed_experts = static_cast<int>(config.integer("num_local_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("intermediate_size", true).value_or(0);
                break;
            case Family::gpt_oss:
                moe.n_routed_experts = static_cast<int>(config.integer("num_local_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("intermediate_size", true).value_or(0);
                break;
            case Family::jamba:
                moe.n_routed_experts = static_cast<int>(config.integer("num_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("intermediate_size", true).value_or(0);
                moe.moe_layer_freq = static_cast<int>(config.integer("expert_layer_period", false).value_or(2));
                moe.moe_layer_offset = static_cast<int>(config.integer("expert_layer_offset", false, 0).value_or(1));
                break;
            case Family::llama4: {
                // Llama4TextConfig: interleave_moe_layer_step s makes layers s-1, 2s-1, ... MoE, each with
                // one shared expert of the routed expert's size.
                moe.n_routed_experts = static_cast<int>(config.integer("num_local_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("intermediate_size", true).value_or(0);
                moe.moe_layer_freq = static_cast<int>(config.integer("interleave_moe_layer_step", false).value_or(1));
                moe.moe_layer_offset = moe.moe_layer_freq - 1;
                moe.n_shared_experts = 1;
                break;
            }
            case Family::glm4_moe:
                moe.n_routed_experts = static_cast<int>(config.integer("n_routed_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("moe_intermediate_size", true).value_or(0);
                moe.n_shared_experts = static_cast<int>(config.integer("n_shared_experts", false, 0).value_or(0));
                moe.first_k_dense_replace = static_cast<int>(config.integer("first_k_dense_replace", false, 0).value_or(0));
                break;
            case Family::minimax_m2:
                moe.n_routed_experts = static_cast<int>(config.integer("num_local_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("intermediate_size", true).value_or(0);
                break;
            case Family::nemotron_h: {
                moe.n_routed_experts = static_cast<int>(config.integer("n_routed_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("moe_intermediate_size", true).value_or(0);
                moe.n_shared_experts = static_cast<int>(config.integer("n_shared_experts", false, 0).value_or(0));
                moe.shared_expert_intermediate_size =
                    config.integer("moe_shared_expert_intermediate_size", false).value_or(0);
                // LatentMoE (Super): null or absent for experts at hidden width (Nano).
                const YAML::Node latent = config.node()["moe_latent_size"];
                if (latent && !latent.IsNull()) moe.latent_size = config.integer("moe_latent_size", true).value_or(0);
                break;
            }
            case Family::qwen2_moe:
            case Family::qwen3_next:
            case Family::qwen3_moe: {
                moe.n_routed_experts = static_cast<int>(config.integer("num_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("moe_intermediate_size", true).value_or(0);
                moe.moe_layer_freq = static_cast<int>(config.integer("decoder_sparse_step", false).value_or(1));
                if (config.has("shared_expert_intermediate_size")) {
                    moe.n_shared_experts = 1;
                    moe.shared_expert_intermediate_size = config.integer("shared_expert_intermediate_size", true).value_or(0);
                }
                const YAML::Node dense_layers = config.node()["mlp_only_layers"];
                if (dense_layers && dense_layers.IsSequence() && dense_layers.size() > 0) {
                    config.fail("mlp_only_layers", "per-layer dense exceptions are not supported; expected an empty list");
                }
                break;
            }
            case Family::deepseek:
                moe.n_routed_experts = static_cast<int>(config.integer("n_routed_experts", true).value_or(0));
                moe.moe_intermediate_size = config.integer("moe_intermediate_size", true).value_or(0);
                moe.n_shared_experts = static_cast<int>(config.integer("n_shared_experts", false, 0).value_or(0));
                moe.first_k_dense_replace = static_cast<int>(config.integer("first_k_dense_replace", false, 0).value_or(0));
                moe.moe_layer_freq = static_cast<int>(config.integer("moe_layer_freq", false).value_or(1));
                break;
            default: break;
        }
        const char* per_token_key = config.has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token";
        moe.num_experts_per_tok = static_cast<int>(config.integer(per_token_key, true).value_or(0));
        if (moe.shared_expert_intermediate_size == 0) moe.shared_expert_intermediate_size = moe.moe_intermediate_size;
        model.moe = moe;
    }

    if (family == Family::deepseek && config.has("kv_lora_rank")) {
        LatentAttention mla;
        mla.kv_lora_rank = config.integer("kv_lora_rank", true).value_or(0);
        mla.q_lora_rank = config.integer("q_lora_rank", false, 0).value_or(0);
        mla.qk_rope_head_dim = config.integer("qk_rope_head_dim", true).value_or(0);
        mla.qk_nope_head_dim = config.integer("qk_nope_head_dim", true).value_or(0);
        mla.v_head_dim = config.integer("v_head_dim", true).value_or(0);
        model.head_dim = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
        model.mla = mla;
    }

    if (compressed) {
        // config.json lists a ratio for each main layer and then the MTP layers' (num_nextn_predict_layers).
        CompressedAttention attention;
        if (auto ratios = config.integers("compress_ratios", true, 0)) {
            if (static_cast<int>(ratios->size()) < model.num_hidden_layers) {
                config.fail("compress_ratios", fmt::format("{} ratios for {} layers; expected one a layer at least",
                                                           ratios->size(), model.num_hidden_layers));
            } else {
                attention.ratios.assign(ratios->begin(), ratios->begin() + model.num_hidden_layers);
            }
        }
        attention.window = config.integer("sliding_window", true).value_or(0);
        attention.q_lora_rank = config.integer("q_lora_rank", true).value_or(0);
        attention.o_lora_rank = config.integer("o_lora_rank", true).value_or(0);
        attention.o_groups = static_cast<int>(config.integer("o_groups", true).value_or(1));
        attention.hc_mult = static_cast<int>(config.integer("hc_mult", false).value_or(1));
        model.compressed_attention = attention;
    }

    if (family == Family::deepseek && config.has("index_topk")) {
        SparseAttention dsa;
        dsa.index_topk = config.integer("index_topk", true).value_or(0);
        dsa.index_n_heads = static_cast<int>(config.integer("index_n_heads", true).value_or(0));
        dsa.index_head_dim = config.integer("index_head_dim", true).value_or(0);
        model.sparse_attention = dsa;
    }

    if (is_gated_delta_hybrid(family)) {
        // Its full-attention layers gate their output through a q_proj twice as wide
        // (Qwen3NextAttention; vLLM reads attn_output_gate, default true).
        model.attn_output_gate = config.boolean("attn_output_gate").value_or(true);
        RecurrentLayers recurrent;
        recurrent.kind = RecurrentKind::gated_delta_net;
        if (config.has("layer_types")) {
            const auto pattern = attention_period_from_layer_types(config.node()["layer_types"], "full_attention");
            if (!pattern) config.fail("layer_types", "full_attention layers that are not periodic are not supported");
            recurrent.attention_period = pattern ? pattern->first : 1;
            recurrent.attention_offset = pattern ? pattern->second : 0;
        } else {
            // Qwen3NextConfig: layer i is full attention iff (i + 1) % full_attention_interval == 0.
            recurrent.attention_period = static_cast<int>(config.integer("full_attention_interval", false).value_or(4));
            recurrent.attention_offset = recurrent.attention_period - 1;
        }
        recurrent.num_key_heads = static_cast<int>(config.integer("linear_num_key_heads", true).value_or(0));
        recurrent.num_value_heads = static_cast<int>(config.integer("linear_num_value_heads", true).value_or(0));
        recurrent.key_head_dim = config.integer("linear_key_head_dim", true).value_or(0);
        recurrent.value_head_dim = config.integer("linear_value_head_dim", true).value_or(0);
        recurrent.conv_kernel = config.integer("linear_conv_kernel_dim", true).value_or(0);
        model.recurrent = recurrent;
    }

    if (family == Family::nemotron_h) {
        // Each layer one block (hybrid_override_pattern: M Mamba-2, * attention, E MoE, - MLP), its
        // MLPs plain squared-ReLU ones (mlp_hidden_act relu2: up and down only).
        model.layer_pattern = config.text("hybrid_override_pattern", true).value_or("");
        model.hidden_act = config.text("mlp_hidden_act", false).value_or("relu2");
        model.gated_mlp = false;
        if (model.layer_pattern.find(kDenseBlock) != std::string::npos) {
            model.intermediate_size = config.integer("intermediate_size", true).value_or(0);
        }
        RecurrentLayers recurrent;
        recurrent.kind = RecurrentKind::mamba2;
        recurrent.num_value_heads = static_cast<int>(config.integer("mamba_num_heads", true).value_or(0));
        recurrent.value_head_dim = config.integer("mamba_head_dim", true).value_or(0);
        recurrent.num_key_heads = static_cast<int>(config.integer("n_groups", true).value_or(0));
        recurrent.d_state = config.integer("ssm_state_size", true).value_or(0);
        recurrent.conv_kernel = config.integer("conv_kernel", true).value_or(0);
        recurrent.attention_period = 1;
        model.recurrent = recurrent;
    }

    if (family == Family::jamba) {
        RecurrentLayers recurrent;
        recurrent.kind = RecurrentKind::mamba;
        recurrent.attention_period = static_cast<int>(config.integer("attn_layer_period", false).value_or(8));
        recurrent.attention_offset = static_cast<int>(config.integer("attn_layer_offset", false, 0).value_or(4));
        recurrent.d_state = config.integer("mamba_d_state", false).value_or(16);
        recurrent.conv_kernel = config.integer("mamba_d_conv", false).value_or(4);
        recurrent.expand = config.integer("mamba_expand", false).value_or(2);
        // JambaConfig: mamba_dt_rank "auto" is ceil(hidden_size / 16).
        if (config.has("mamba_dt_rank") && config.node()["mamba_dt_rank"].IsScalar() &&
            config.node()["mamba_dt_rank"].Scalar() == "auto") {
            recurrent.dt_rank = (model.hidden_size + 15) / 16;
        } else {
            recurrent.dt_rank = config.integer("mamba_dt_rank", false).value_or((model.hidden_size + 15) / 16);
        }
        model.recurrent = recurrent;
    }

    if (family == Family::llama4 && config.has("attention_chunk_size")) {
        ChunkedAttention chunked;
        chunked.chunk = config.integer("attention_chunk_size", true).value_or(0);
        // no_rope_layers[i] == 0 marks a global NoPE layer; Llama4TextConfig makes every
        // no_rope_layer_interval-th (default 4) layer one.
        chunked.pattern = static_cast<int>(config.integer("no_rope_layer_interval", false).value_or(4));
        if (const YAML::Node flags = config.node()["no_rope_layers"]; flags && flags.IsSequence() && flags.size() > 0) {
            std::vector<bool> global;
            for (const auto& flag : flags) global.push_back(flag.IsScalar() && flag.Scalar() == "0");
            int period = 0;
            for (std::size_t i = 0; i < global.size(); ++i) {
                if (global[i]) {
                    period = static_cast<int>(i) + 1;
                    break;
                }
            }
            bool periodic = period > 0;
            for (std::size_t i = 0; periodic && i < global.size(); ++i) {
                periodic = global[i] == ((static_cast<int>(i) + 1) % period == 0);
            }
            if (!periodic) config.fail("no_rope_layers", "global (NoPE) layers that are not every n-th layer are not supported");
            chunked.pattern = period > 0 ? period : chunked.pattern;
        }
        if (chunked.chunk > 0) model.chunked_attention = chunked;
    }

    // layer_types names each layer's kind. A kind this import does not give the model (a
    // linear-attention layer in a plain qwen3 config) would be priced as full attention: a shape
    // silently wrong, so it is refused, whatever the family.
    if (config.has("layer_types")) {
        std::set<std::string> modelled{"full_attention"};
        if (model.sliding_window || model.compressed_attention) modelled.insert("sliding_attention");
        if (model.recurrent && model.recurrent->kind == RecurrentKind::gated_delta_net) modelled.insert("linear_attention");
        const YAML::Node layer_types = config.node()["layer_types"];
        std::map<std::string, int> unmodelled;
        if (layer_types.IsSequence()) {
            for (const auto& entry : layer_types) {
                const std::string kind = entry.IsScalar() ? core::printable(entry.Scalar()) : "a list or an object";
                if (!modelled.contains(kind)) ++unmodelled[kind];
            }
        } else {
            ++unmodelled[layer_types.IsScalar() ? core::printable(layer_types.Scalar()) : "a list or an object"];
        }
        if (!unmodelled.empty()) {
            const auto& [kind, count] = *unmodelled.begin();
            config.fail("layer_types", fmt::format("{} layer{} of kind '{}', which model_type '{}' does not have here; "
                                                   "this import reads {} (a list, one kind a layer)",
                                                   count, count == 1 ? "" : "s", kind, *model_type,
                                                   fmt::join(modelled, ", ")));
        }
    }

    if (*model_type == "mllama") read_tiled_vision(document, model, top, config, path, diagnostics);

    if (const YAML::Node quantization = top.node()["quantization_config"]; quantization && quantization.IsMap()) {
        const auto [format, described] = checkpoint_format(quantization, top.text("expert_dtype", false).value_or(""));
        model.checkpoint_weights = format;
        model.checkpoint_quantization = described;
    }

    if (diagnostics.empty()) {
        check_model_consistency(
            model, [&config](const std::string& key) { return config.locate(key); }, diagnostics);
    }
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return model;
}

}  // namespace decodesim::profiles
