#include "profiles/runtime_loader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/quantization.hpp"
#include "core/registry.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "core/units.hpp"
#include "profiles/input_file.hpp"
#include "profiles/runtime_fields.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {

namespace {

// A millisecond per kernel or per sequence is a typo (ms for us).
constexpr double kMaxRuntimeOverheadSeconds = 1e-3;
// A workspace beside the weights of more than a terabyte is a typo.
constexpr double kMaxWorkspaceBytes = 1e12;
// Scheduler limits: larger than any runtime's default by far.
constexpr std::int64_t kMaxSchedulerSequences = 1 << 20;
constexpr std::int64_t kMaxSchedulerTokens = std::int64_t{1} << 24;
constexpr std::int64_t kMaxGraphBatch = 1 << 16;
// Launches a block may take: a graph of one kernel a node has a few dozen.
constexpr double kMaxKernelsPerBlock = 1000.0;
// Query rows a prompt kernel's tile may hold.
constexpr double kMaxTileRows = 4096.0;

const std::vector<std::string> kRootKeys{"name",   "version", "current",     "base",         "description",
                                         "source", "measured", "measurements", "ideal",        "kernel_graph",
                                         "attention", "matmul", "kv_cache",     "scheduler",    "cuda_graphs",
                                         "eager_passes", "request_path", "speculation", "launch", "factors"};

// A quantity that may be zero ("0 us", "0 GiB"), which parse_quantity refuses for the dimensions of
// a device but a runtime may well have; its unit is checked on one of it.
std::optional<double> zero_or_quantity(StrictMap& section, const std::string& key, core::Dimension dimension,
                                       double maximum, const std::string& range) {
    const auto text = section.string(key, Presence::optional);
    if (!text) return std::nullopt;
    const std::size_t unit_at = text->find_last_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    const std::string number = unit_at == std::string::npos ? std::string() : text->substr(0, unit_at + 1);
    const std::string unit = unit_at == std::string::npos ? *text : text->substr(unit_at + 1);
    double amount = 0.0;
    try {
        if (core::parse_number(number, amount) && amount <= 0.0) {
            if (amount < 0.0) {
                section.error(key, range);
                return std::nullopt;
            }
            if (unit.empty()) {
                section.error(key, fmt::format("'{}' has no unit; expected {} (units: {})", *text, range,
                                               core::accepted_units(dimension)));
                return std::nullopt;
            }
            core::parse_quantity("1 " + unit, dimension);
            return 0.0;
        }
        const double value = core::parse_quantity(*text, dimension);
        if (value > maximum) {
            section.error(key, range);
            return std::nullopt;
        }
        return value;
    } catch (const core::UnitError& problem) {
        section.error(key, problem.what());
        return std::nullopt;
    }
}

std::optional<double> overhead(StrictMap& section, const std::string& key) {
    return zero_or_quantity(section, key, core::Dimension::time, kMaxRuntimeOverheadSeconds,
                            fmt::format("expected a time from 0 us to {:g} us", kMaxRuntimeOverheadSeconds * 1e6));
}

// Every section but the factors states where its figures come from.
void require_source(StrictMap& section) { section.string("source", Presence::required); }

std::vector<std::string> backend_names() {
    std::vector<std::string> names;
    for (const core::BackendInfo& info : core::kBackends) names.emplace_back(info.name);
    return names;
}

// The launches or ops a layer's block takes (a kernel graph's, an eager pass's): 0 to kMaxKernelsPerBlock.
void read_block_count(StrictMap& section, const char* key, double& into) {
    if (auto value = section.non_negative_number(key, Presence::required, kMaxKernelsPerBlock)) into = *value;
}

// A value named by one row of `table` (core/enum_names.hpp); an unknown name is an error listing
// the table's names joined by `separator`.
template <typename Table>
auto named_value(StrictMap& section, const std::string& key, Presence presence, const Table& table,
                 const char* separator) -> std::optional<decltype(std::declval<typename Table::value_type>().value)> {
    const auto name = section.string(key, presence);
    if (!name) return std::nullopt;
    if (const auto* row = core::find_named(table, *name)) return row->value;
    section.error(key, fmt::format("unknown '{}'; expected {}", *name, fmt::join(core::names_of(table), separator)));
    return std::nullopt;
}

// A required time from 0 to `maximum` seconds; `range` and `example` word its errors.
void read_required_time(StrictMap& section, const char* key, double maximum, const std::string& range,
                        const char* example, core::Seconds& into) {
    if (auto value = zero_or_quantity(section, key, core::Dimension::time, maximum, range)) {
        into = core::Seconds(*value);
    } else if (!section.has(key)) {
        section.error(key, fmt::format("missing required key; expected a time such as '{}'", example));
    }
}

// A kernel graph's keys beside its source: what a counted graph states, then what only a
// runtime's own graph (not one of its other_families) may.
const std::vector<std::string> kCountedGraphKeys{"attention_block",     "latent_attention_block", "sparse_attention_block",
                                                 "dense_mlp_block",     "moe_mlp_block",          "shared_expert_block",
                                                 "families",            "moe_formats",            "memory",
                                                 "launch_time"};
const std::vector<std::string> kOwnGraphKeys{"structural", "other_families"};

// `nested`: one of another graph's other_families.
void read_kernel_graph(StrictMap& section, KernelGraph& graph, bool nested = false) {
    require_source(section);
    std::vector<std::string> known{"source"};
    known.insert(known.end(), kCountedGraphKeys.begin(), kCountedGraphKeys.end());
    if (!nested) known.insert(known.end(), kOwnGraphKeys.begin(), kOwnGraphKeys.end());
    // `structural: true`: the runtime's launches are not counted (a compiled or fused engine on
    // a base whose graph is counted): its blocks keep the structural kernels.
    if (!nested && section.boolean("structural", Presence::optional).value_or(false)) {
        for (const std::string& key : known) {
            if (key == "source" || key == "structural" || !section.has(key)) continue;
            section.accept(key);
            section.error(key, "a graph marked structural: true states no counts; remove one of the two");
        }
        section.reject_unknown_keys({"source", "structural"});
        return;
    }
    read_block_count(section, "attention_block", graph.attention_block);
    read_block_count(section, "dense_mlp_block", graph.dense_mlp_block);
    read_block_count(section, "moe_mlp_block", graph.moe_mlp_block);
    if (auto latent = section.non_negative_number("latent_attention_block", Presence::optional, kMaxKernelsPerBlock)) {
        graph.latent_attention_block = *latent;
    }
    if (auto sparse = section.non_negative_number("sparse_attention_block", Presence::optional, kMaxKernelsPerBlock)) {
        graph.sparse_attention_block = *sparse;
    }
    graph.shared_expert_block =
        section.non_negative_number("shared_expert_block", Presence::optional, kMaxKernelsPerBlock);
    if (auto families = section.strings("families", Presence::optional)) {
        for (const std::string& family : *families) {
            const bool well_formed = family.find('-') != std::string::npos &&
                                     std::all_of(family.begin(), family.end(), [](unsigned char c) {
                                         return std::islower(c) || std::isdigit(c) || c == '-' || c == '.';
                                     });
            if (!well_formed) {
                section.error("families", fmt::format("'{}' is not a hardware family; expected vendor-architecture, "
                                                      "as a hardware profile's vendor and architecture (nvidia-hopper)",
                                                      family));
            }
        }
        graph.families = *families;
    }
    if (auto formats = section.strings("moe_formats", Presence::optional)) {
        for (const std::string& format : *formats) {
            if (!core::find_named(core::weight_formats(), format)) {
                section.error("moe_formats", fmt::format("unknown weight format '{}'; expected {}", format,
                                                         fmt::join(core::names_of(core::weight_formats()), ", ")));
            }
        }
        graph.moe_formats = *formats;
    }
    if (auto memory = section.strings("memory", Presence::optional)) {
        for (const std::string& name : *memory) {
            if (const auto* row = core::find_named(core::kMemoryFamilyNames, name)) {
                graph.memory.push_back(row->value);
            } else {
                section.error("memory", fmt::format("unknown memory family '{}'; expected {}", name,
                                                    fmt::join(core::names_of(core::kMemoryFamilyNames), ", ")));
            }
        }
    }
    if (auto launch = overhead(section, "launch_time")) {
        graph.launch_time = core::Seconds(*launch);
    }
    if (nested) {
        // A graph for other families names them, and none is its parent's.
        if (graph.families.empty()) section.error("families", "a graph of other_families states the families it was counted on");
        section.reject_unknown_keys(known);
        return;
    }
    std::vector<std::string> seen = graph.families;
    for (StrictMap& other : section.list_of_maps("other_families", Presence::optional)) {
        KernelGraph counted;
        read_kernel_graph(other, counted, true);
        for (const std::string& family : counted.families) {
            if (graph.families.empty() || std::find(seen.begin(), seen.end(), family) != seen.end()) {
                other.error("families", fmt::format("'{}' already has a graph here (the graph above{})", family,
                                                    graph.families.empty() ? " counts every family: give it families" : ""));
            }
            seen.push_back(family);
        }
        graph.other_families.push_back(std::move(counted));
    }
    section.reject_unknown_keys(known);
}

void read_attention(StrictMap& section, RuntimeProfile& profile, bool has_base) {
    require_source(section);
    if (auto kernels = section.string("kernels", Presence::required)) {
        if (*kernels == "fused") {
            profile.attention = AttentionKernels::fused;
        } else if (*kernels == "unfused") {
            profile.attention = AttentionKernels::unfused;
        } else {
            section.error("kernels", fmt::format("unknown attention kernels '{}'; expected fused or unfused", *kernels));
        }
    }
    if (auto tiles = section.map("tile_rows", has_base ? Presence::optional : Presence::required)) {
        for (const core::BackendInfo& info : core::kBackends) {
            const std::string key(info.name);
            if (auto rows = tiles->non_negative_number(key, has_base ? Presence::optional : Presence::required, kMaxTileRows)) {
                profile.attention_tile_rows[static_cast<std::size_t>(info.backend)] = *rows;
            }
        }
        tiles->reject_unknown_keys(backend_names());
    }
    section.reject_unknown_keys({"source", "kernels", "tile_rows"});
}

void read_matmul(StrictMap& section, RuntimeProfile& profile) {
    require_source(section);
    // The section replaces the base's paths whole: a backend it does not name has none.
    profile.block_matmul = {};
    if (auto formats = section.map("block_formats", Presence::required)) {
        for (const core::BackendInfo& info : core::kBackends) {
            auto path = formats->map(std::string(info.name), Presence::optional);
            if (!path) continue;
            BlockFormatMatmul& into = profile.block_matmul[static_cast<std::size_t>(info.backend)];
            into.issue_bound = path->boolean("issue_bound", Presence::optional).value_or(false);
            into.dequantized_above_tokens =
                static_cast<double>(path->non_negative_integer("dequantized_above_tokens", Presence::optional, kMaxSchedulerTokens)
                                        .value_or(0));
            path->reject_unknown_keys({"issue_bound", "dequantized_above_tokens"});
        }
        formats->reject_unknown_keys(backend_names());
    }
    section.reject_unknown_keys({"source", "block_formats"});
}

void read_kv_cache(StrictMap& section, KvCacheSizing& sizing) {
    require_source(section);
    if (auto share = section.fraction("capacity_share", Presence::required)) sizing.capacity_share = *share;
    if (auto workspace = zero_or_quantity(section, "workspace", core::Dimension::bytes, kMaxWorkspaceBytes,
                                          "expected a size from 0 GiB to 1 TB")) {
        sizing.workspace = core::Bytes(*workspace);
    } else if (!section.has("workspace")) {
        section.error("workspace", "missing required key; expected a size such as '0 GiB'");
    }
    if (auto share = section.fraction("free_share", Presence::required)) sizing.free_share = *share;
    section.reject_unknown_keys({"source", "capacity_share", "workspace", "free_share"});
}

// `device_tiers:` its source and a list of tiers, each a memory floor, an optional name it excludes
// and at least one of the two limits.
void read_device_tiers(StrictMap& section, std::vector<DeviceTier>& tiers) {
    require_source(section);
    for (StrictMap& item : section.list_of_maps("tiers", Presence::required)) {
        DeviceTier tier;
        if (auto memory = item.quantity("min_memory", core::Dimension::bytes, Presence::required)) {
            if (*memory <= 0.0 || *memory > kMaxWorkspaceBytes) {
                item.error("min_memory", "expected a size above 0 and at most 1 TB, such as '70 GiB'");
            } else {
                tier.min_memory = core::Bytes(*memory);
            }
        }
        if (auto name = item.string("excluded_name", Presence::optional)) tier.excluded_name = *name;
        if (auto value = item.positive_integer("max_sequences", Presence::optional, kMaxSchedulerSequences)) {
            tier.max_sequences = *value;
        }
        if (auto value = item.positive_integer("max_batched_tokens", Presence::optional, kMaxSchedulerTokens)) {
            tier.max_batched_tokens = *value;
        }
        if (!item.has("max_sequences") && !item.has("max_batched_tokens")) {
            item.error("min_memory", "a tier sets max_sequences, max_batched_tokens or both");
        }
        item.reject_unknown_keys({"min_memory", "excluded_name", "max_sequences", "max_batched_tokens"});
        tiers.push_back(tier);
    }
    section.reject_unknown_keys({"source", "tiers"});
}

// `sequences_from_cache:` its source and the rule's four numbers (CacheSizedSequences).
CacheSizedSequences read_cache_sized_sequences(StrictMap& section) {
    require_source(section);
    CacheSizedSequences rule;
    if (auto value = section.positive_number("per_context", Presence::required, 1e6)) rule.per_context = *value;
    if (auto value = section.positive_integer("at_least", Presence::required, kMaxSchedulerSequences)) rule.at_least = *value;
    if (auto value = section.positive_integer("at_most", Presence::required, kMaxSchedulerSequences)) rule.at_most = *value;
    if (auto share = section.fraction("cache_share", Presence::required)) {
        if (*share <= 0.0) {
            section.error("cache_share", "expected a share above 0 and at most 1");
        } else {
            rule.cache_share = *share;
        }
    }
    if (rule.at_most < rule.at_least) section.error("at_most", "expected at least at_least");
    section.reject_unknown_keys({"source", "per_context", "at_least", "at_most", "cache_share"});
    return rule;
}

// The section replaces the base's scheduler whole: device tiers it does not state are not inherited.
void read_scheduler(StrictMap& section, SchedulerDefaults& scheduler) {
    require_source(section);
    scheduler = SchedulerDefaults{};
    SchedulerLimits& limits = scheduler.limits;
    if (auto value = section.positive_integer("max_sequences", Presence::required, kMaxSchedulerSequences)) {
        limits.max_sequences = *value;
    }
    if (auto value = section.positive_integer("max_batched_tokens", Presence::required, kMaxSchedulerTokens)) {
        limits.max_batched_tokens = *value;
    }
    if (auto value = section.positive_integer("block_tokens", Presence::required, kMaxSchedulerTokens)) {
        limits.block_tokens = *value;
    }
    if (auto value = section.boolean("chunked_prefill", Presence::required)) limits.chunked_prefill = *value;
    if (auto value = section.boolean("prefix_caching", Presence::required)) limits.prefix_caching = *value;
    if (auto separate = named_value(section, "prefill_passes", Presence::optional, kPrefillPassNames, " or ")) {
        limits.separate_prefill = *separate;
    }
    if (auto whole = named_value(section, "admission", Presence::optional, kAdmissionNames, " or ")) {
        limits.reserve_whole_request = *whole;
    }
    if (auto per_replica = named_value(section, "limits_per", Presence::optional, kLimitsPerNames, " or ")) {
        limits.limits_per_attention_replica = *per_replica;
    }
    if (auto budget = section.string("unchunked_budget", Presence::optional)) {
        if (*budget == "context") {
            scheduler.unchunked_budget_is_context = true;
        } else if (*budget != "stated") {
            section.error("unchunked_budget", fmt::format("unknown '{}'; expected context or stated", *budget));
        }
    }
    if (auto value = section.positive_integer("speculative_max_sequences", Presence::optional, kMaxSchedulerSequences)) {
        scheduler.speculative_max_sequences = *value;
    }
    if (auto tiers = section.map("device_tiers", Presence::optional)) read_device_tiers(*tiers, scheduler.device_tiers);
    if (auto rule = section.map("sequences_from_cache", Presence::optional)) {
        scheduler.sequences_from_cache = read_cache_sized_sequences(*rule);
    }
    section.reject_unknown_keys({"source", "max_sequences", "max_batched_tokens", "block_tokens", "chunked_prefill",
                                 "prefix_caching", "prefill_passes", "admission", "limits_per", "unchunked_budget", "speculative_max_sequences",
                                 "device_tiers", "sequences_from_cache"});
}

// Times on the request path: up to a second each, a token's tokenization up to a millisecond.
void read_request_path(StrictMap& section, RequestPath& path) {
    require_source(section);
    auto time = [&](const char* key, double maximum, core::Seconds& into) {
        read_required_time(section, key, maximum, fmt::format("expected a time from 0 ms to {:g} ms", maximum * 1e3), "5 ms",
                           into);
    };
    time("before_scheduler", 1.0, path.before_scheduler);
    time("per_prompt_token", 1e-3, path.per_prompt_token);
    time("after_step", 1.0, path.after_step);
    if (auto value = zero_or_quantity(section, "per_output_token", core::Dimension::time, 1e-2,
                                      "expected a time from 0 us to 10000 us")) {
        path.per_output_token = core::Seconds(*value);
    }
    section.reject_unknown_keys({"source", "before_scheduler", "per_prompt_token", "after_step", "per_output_token"});
}

// `speculation:` what a speculative round costs beyond its passes.
void read_speculation(StrictMap& section, SpeculativeRounds& rounds) {
    require_source(section);
    read_required_time(section, "round_host_time", 1.0, "expected a time from 0 ms to 1000 ms", "2 ms", rounds.host_time);
    section.reject_unknown_keys({"source", "round_host_time"});
}

// `cuda_graphs:` the decode batch sizes captured, whether a batch between two replays the next
// (padding, on unless stated off) and the tiers that cut the list by the device's memory and
// tensor-parallel degree. A tier keeps at least the smallest size: a device that captures nothing
// is a run with graphs off (--cuda-graphs off), not a tier.
void read_cuda_graphs(StrictMap& section, CapturedGraphs& graphs) {
    require_source(section);
    graphs = CapturedGraphs{};
    if (auto values = section.increasing_integers("batch_sizes", Presence::required, kMaxGraphBatch)) {
        graphs.batch_sizes.assign(values->begin(), values->end());
    }
    if (auto padding = section.boolean("padding", Presence::optional)) graphs.padding = *padding;
    for (StrictMap& item : section.list_of_maps("tiers", Presence::optional)) {
        GraphSizeTier tier;
        if (auto memory = zero_or_quantity(item, "min_memory", core::Dimension::bytes, kMaxWorkspaceBytes,
                                           "expected a size from 0 to 1 TB, such as '70 GiB'")) {
            tier.min_memory = core::Bytes(*memory);
        } else if (!item.has("min_memory")) {
            item.error("min_memory", "missing required key; expected a size such as '70 GiB' (0 for every device)");
        }
        if (auto degree = item.positive_integer("min_tensor", Presence::optional, kMaxGraphBatch)) {
            tier.min_tensor = static_cast<int>(*degree);
        }
        if (auto largest = item.positive_integer("max_batch", Presence::required, kMaxGraphBatch)) {
            tier.max_batch = *largest;
            if (!graphs.batch_sizes.empty() && *largest < graphs.batch_sizes.front()) {
                item.error("max_batch", fmt::format("{} is below the smallest captured size, {}", *largest,
                                                    graphs.batch_sizes.front()));
            }
        }
        item.reject_unknown_keys({"min_memory", "min_tensor", "max_batch"});
        graphs.tiers.push_back(tier);
    }
    section.reject_unknown_keys({"source", "batch_sizes", "padding", "tiers"});
}

// The passes a runtime dispatches op by op: which, each op's host time (up to a millisecond) and
// the ops a block dispatches (EagerPasses).
void read_eager_passes(StrictMap& section, EagerPasses& eager) {
    require_source(section);
    if (auto passes = section.string("passes", Presence::required)) {
        if (*passes == "prefill" || *passes == "all") {
            eager.prefill = true;
            eager.decode = *passes == "all";
        } else if (*passes == "none") {
            eager.prefill = eager.decode = false;
        } else {
            section.error("passes", fmt::format("unknown '{}'; expected none, prefill or all", *passes));
        }
    }
    read_required_time(section, "op_time", 1e-3, "expected a time from 0 us to 1000 us", "10 us", eager.op_time);
    read_block_count(section, "attention_block", eager.attention_block);
    read_block_count(section, "latent_attention_block", eager.latent_attention_block);
    read_block_count(section, "dense_mlp_block", eager.dense_mlp_block);
    read_block_count(section, "moe_mlp_block", eager.moe_mlp_block);
    if (auto value = section.non_negative_number("sparse_attention_block", Presence::optional, kMaxKernelsPerBlock)) {
        eager.sparse_attention_block = *value;
    }
    if (auto value = section.non_negative_number("delta_net_block", Presence::optional, kMaxKernelsPerBlock)) {
        eager.delta_net_block = *value;
    }
    section.reject_unknown_keys({"source", "passes", "op_time", "attention_block", "latent_attention_block",
                                 "sparse_attention_block", "dense_mlp_block", "moe_mlp_block", "delta_net_block"});
}

// A launch text: a string whose every `${name}` is a placeholder the renderer fills (kLaunchPlaceholders).
std::optional<std::string> launch_text(StrictMap& section, const std::string& key, Presence presence,
                                       bool lines = false) {
    auto text = lines ? section.text_block(key, presence) : section.string(key, presence);
    if (!text) return text;
    std::optional<std::string> unknown;  // the first name no placeholder has
    fill_placeholders(*text, [&unknown](std::string_view name) -> std::optional<std::string> {
        const bool known = std::find(kLaunchPlaceholders.begin(), kLaunchPlaceholders.end(), name) != kLaunchPlaceholders.end();
        if (!known && !unknown) unknown = std::string(name);
        return std::nullopt;
    });
    if (unknown) {
        section.error(key, fmt::format("unknown placeholder '${{{}}}'; expected one of {}", *unknown,
                                       fmt::join(kLaunchPlaceholders, ", ")));
        return std::nullopt;
    }
    return text;
}

// A list of {when, text} pieces (flags or notes).
std::vector<LaunchPiece> launch_pieces(StrictMap& section, const std::string& key) {
    std::vector<LaunchPiece> pieces;
    for (StrictMap& item : section.list_of_maps(key, Presence::optional)) {
        LaunchPiece piece;
        if (auto when = named_value(item, "when", Presence::required, kLaunchConditionNames, ", ")) piece.when = *when;
        piece.text = launch_text(item, "text", Presence::required).value_or("");
        item.reject_unknown_keys({"when", "text"});
        pieces.push_back(std::move(piece));
    }
    return pieces;
}

// `launch:`: the serving command and its flags as data; replaces the base's whole.
void read_launch(StrictMap& section, LaunchTemplate& launch) {
    launch.source = section.string("source", Presence::required).value_or("");
    launch.serve = launch_text(section, "serve", Presence::required).value_or("");
    launch.flags = launch_pieces(section, "flags");
    launch.prefill_role = launch_text(section, "prefill_role", Presence::optional).value_or("");
    launch.decode_role = launch_text(section, "decode_role", Presence::optional).value_or("");
    launch.router = launch_text(section, "router", Presence::optional).value_or("");
    launch.verify = launch_text(section, "verify", Presence::required).value_or("");
    launch.verify_flags = launch_pieces(section, "verify_flags");
    launch.notes = launch_pieces(section, "notes");
    for (StrictMap& item : section.list_of_maps("orchestrators", Presence::optional)) {
        Orchestrator orchestrator;
        orchestrator.name = item.string("name", Presence::required).value_or("");
        orchestrator.source = item.string("source", Presence::required).value_or("");
        // Deployed from a file or run as a worker command: the key decides, so a bad manifest is one error.
        const bool from_file = item.has("manifest");
        orchestrator.manifest = launch_text(item, "manifest", Presence::optional, true).value_or("");
        orchestrator.serve = launch_text(item, "serve", from_file ? Presence::optional : Presence::required).value_or("");
        if (from_file) {
            orchestrator.manifest_file = item.string("manifest_file", Presence::required).value_or("");
            orchestrator.install = launch_text(item, "install", Presence::required).value_or("");
            orchestrator.sets_flags = item.strings("sets_flags", Presence::optional).value_or(std::vector<std::string>{});
        }
        orchestrator.prefill_role = launch_text(item, "prefill_role", Presence::optional).value_or("");
        orchestrator.decode_role = launch_text(item, "decode_role", Presence::optional).value_or("");
        orchestrator.router = launch_text(item, "router", Presence::required).value_or("");
        orchestrator.verify = launch_text(item, "verify", Presence::required).value_or("");
        orchestrator.verify_flags = launch_pieces(item, "verify_flags");
        orchestrator.notes = launch_pieces(item, "notes");
        item.reject_unknown_keys({"name", "source", "serve", "manifest", "manifest_file", "install", "sets_flags",
                                  "prefill_role", "decode_role", "router", "verify", "verify_flags", "notes"});
        if (core::find_named(launch.orchestrators, orchestrator.name)) {
            item.error("name", fmt::format("'{}' twice", orchestrator.name));
        }
        launch.orchestrators.push_back(std::move(orchestrator));
    }
    section.reject_unknown_keys({"source", "serve", "flags", "prefill_role", "decode_role", "router", "verify",
                                 "verify_flags", "notes", "orchestrators"});
}

// `has_base`: the fields stated are the build's own over its fit group's (own_factors).
void read_factors(StrictMap& section, RuntimeProfile& profile, bool has_base) {
    // The command that fits them: a reader of the file knows how to reproduce them.
    section.string("fitted_by", Presence::required);
    std::vector<std::string> key_names{"fitted_by"};
    std::vector<std::string> field_names;
    for (const RuntimeFactorField& field : kRuntimeFactorFields) field_names.emplace_back(field.key);
    for (core::MemoryFamily family : core::kMemoryFamilies) {
        const std::string family_name(core::memory_family_name(family));
        key_names.push_back(family_name);
        auto stated = section.map(family_name, Presence::optional);
        if (!stated) continue;
        RuntimeFactors& factors = profile.by_family[static_cast<std::size_t>(family)];
        for (std::size_t index = 0; index < kRuntimeFactorFields.size(); ++index) {
            const RuntimeFactorField& field = kRuntimeFactorFields[index];
            const std::string name(field.key);
            std::optional<double> value;
            switch (field.unit) {
                case core::FactorUnit::duration: value = overhead(*stated, name); break;
                case core::FactorUnit::multiplier:
                    value = stated->positive_number(name, Presence::optional, field.maximum);
                    if (value && *value < kMinRuntimeFactor) {
                        stated->error(name, fmt::format("{:g} is below {:g}, a hundredth of the measured defaults; expected "
                                                        "a multiplier from {:g} to {:g}",
                                                        *value, kMinRuntimeFactor, kMinRuntimeFactor, field.maximum));
                        value.reset();
                    }
                    break;
                case core::FactorUnit::rows: value = stated->non_negative_number(name, Presence::optional, field.maximum); break;
            }
            if (!value) continue;
            field.value(factors) = *value;
            if (has_base) profile.own_factors[static_cast<std::size_t>(family)] |= 1U << index;
        }
        stated->reject_unknown_keys(field_names);
    }
    section.reject_unknown_keys(key_names);
}

// A name or version: letters, digits and . - _ (an id is name@version).
bool id_part(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '.' || c == '-' || c == '_';
    });
}

RuntimeProfileHead read_head(StrictMap& root, const std::string& path) {
    RuntimeProfileHead head;
    head.path = path;
    head.name = root.string("name", Presence::required).value_or("");
    if (!head.name.empty() && !id_part(head.name)) {
        root.error("name", "expected letters, digits, '.', '-' and '_' (a version goes in version:)");
    }
    head.version = root.string("version", Presence::optional).value_or("");
    if (!head.version.empty() && !id_part(head.version)) root.error("version", "expected letters, digits, '.', '-' and '_'");
    head.current = root.boolean("current", Presence::optional).value_or(false);
    head.base = root.string("base", Presence::optional).value_or("");
    head.id = head.version.empty() ? head.name : head.name + "@" + head.version;
    return head;
}

}  // namespace

int compare_versions(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool digit_a = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool digit_b = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (digit_a && digit_b) {
            std::size_t end_a = i, end_b = j;
            while (end_a < a.size() && std::isdigit(static_cast<unsigned char>(a[end_a])) != 0) ++end_a;
            while (end_b < b.size() && std::isdigit(static_cast<unsigned char>(b[end_b])) != 0) ++end_b;
            // Compare as numbers without overflow: strip leading zeros, then by length, then by digits.
            std::string_view run_a(a.data() + i, end_a - i), run_b(b.data() + j, end_b - j);
            run_a.remove_prefix(std::min(run_a.find_first_not_of('0'), run_a.size()));
            run_b.remove_prefix(std::min(run_b.find_first_not_of('0'), run_b.size()));
            if (run_a.size() != run_b.size()) return run_a.size() < run_b.size() ? -1 : 1;
            if (const int order = run_a.compare(run_b); order != 0) return order < 0 ? -1 : 1;
            i = end_a;
            j = end_b;
        } else {
            if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
            ++i;
            ++j;
        }
    }
    if (i < a.size()) return 1;
    if (j < b.size()) return -1;
    return 0;
}

RuntimeProfileHead read_runtime_head(const std::string& path) {
    const YAML::Node document = load_document(path);
    std::vector<core::Diagnostic> diagnostics;
    StrictMap root(document, path, "", diagnostics);
    RuntimeProfileHead head = read_head(root, path);
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return head;
}

RuntimeProfile load_runtime_profile(const std::string& path, const RuntimeBaseLookup& base_lookup) {
    return parse_runtime_profile(read_input_file(path), path, base_lookup);
}

RuntimeProfile parse_runtime_profile(const std::string& text, const std::string& path,
                                     const RuntimeBaseLookup& base_lookup) {
    const YAML::Node document = parse_document(text, path);
    std::vector<core::Diagnostic> diagnostics;
    StrictMap root(document, path, "", diagnostics);
    const RuntimeProfileHead head = read_head(root, path);

    RuntimeProfile profile;
    const bool has_base = !head.base.empty();
    if (has_base) {
        try {
            profile = *base_lookup(head.base);
        } catch (const core::InputError& problem) {
            // The catalog's message names the runtime and the closest one; a broken base file is its own.
            for (const core::Diagnostic& diagnostic : problem.diagnostics()) {
                if (diagnostic.location.file.empty()) {
                    root.error("base", diagnostic.message);
                } else {
                    diagnostics.push_back(diagnostic);
                }
            }
        }
        if (profile.ideal) root.error("base", "the ideal runtime is the datasheet; it has nothing to refine");
    }
    profile.id = head.id;
    profile.name = head.name;
    profile.version = head.version;
    // A profile without a base starts a fit group of its own, named by its runtime.
    if (!has_base) profile.fit_group = head.name;
    if (auto description = root.string("description", has_base ? Presence::optional : Presence::required)) {
        profile.description = *description;
    }
    profile.source = root.string("source", Presence::required).value_or("");
    // Stated by every file, never inherited: whether this build itself was measured.
    profile.measured = root.boolean("measured", Presence::required).value_or(false);
    profile.measured_note = root.string("measurements", Presence::required).value_or("");
    if (auto ideal = root.boolean("ideal", Presence::optional)) {
        if (has_base) root.error("ideal", "a profile with a base is never ideal");
        profile.ideal = *ideal;
    }
    if (profile.ideal) {
        profile.by_family = {kNoOverheads, kNoOverheads, kNoOverheads};
        profile.fit_group.clear();  // the datasheet has no fit and no band
    }

    const Presence section_presence = has_base || profile.ideal ? Presence::optional : Presence::required;
    if (auto section = root.map("kernel_graph", Presence::optional)) {
        profile.graph = KernelGraph{};  // replaces the base's whole
        read_kernel_graph(*section, profile.graph);
    }
    if (auto section = root.map("attention", section_presence)) read_attention(*section, profile, has_base);
    if (auto section = root.map("matmul", Presence::optional)) read_matmul(*section, profile);
    if (auto section = root.map("kv_cache", section_presence)) read_kv_cache(*section, profile.kv_sizing);
    if (auto section = root.map("scheduler", section_presence)) read_scheduler(*section, profile.scheduler);
    // Never inherited: the sizes are one build's own start-up list, and a runtime on its base's
    // kernels (MLX, ExLlamaV2 on vLLM's factors) captures none of vLLM's.
    profile.captured_graphs = CapturedGraphs{};
    if (auto section = root.map("cuda_graphs", Presence::optional)) read_cuda_graphs(*section, profile.captured_graphs);
    if (auto section = root.map("eager_passes", Presence::optional)) {
        profile.eager = EagerPasses{};  // replaces the base's whole
        read_eager_passes(*section, profile.eager);
    }
    if (auto section = root.map("request_path", Presence::optional)) {
        profile.request_path = RequestPath{};  // replaces the base's whole
        read_request_path(*section, profile.request_path);
    }
    if (auto section = root.map("speculation", Presence::optional)) {
        profile.speculation = SpeculativeRounds{};  // replaces the base's whole
        read_speculation(*section, profile.speculation);
    }
    // `launch: none`: a runtime built on its base's kernels but launched otherwise (MLX, ExLlamaV2 on
    // vLLM's factors) has no command decodesim knows; a map replaces the base's whole.
    if (document.IsMap() && document["launch"] && document["launch"].IsScalar()) {
        if (root.string("launch", Presence::required) != "none") {
            root.error("launch", "expected a map (source, serve, flags, verify, ...) or none");
        }
        profile.launch.reset();
    } else if (auto section = root.map("launch", Presence::optional)) {
        profile.launch = LaunchTemplate{};
        read_launch(*section, *profile.launch);
    }
    if (auto section = root.map("factors", has_base || profile.ideal ? Presence::optional : Presence::required)) {
        if (profile.ideal) {
            root.error("factors", "the ideal runtime runs at the datasheet's peaks; it has no factors");
        } else {
            read_factors(*section, profile, has_base);
        }
    }
    root.reject_unknown_keys(kRootKeys);
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return profile;
}

}  // namespace decodesim::profiles
