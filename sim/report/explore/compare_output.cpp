#include "report/price_basis.hpp"
#include "report/explore/compare_output.hpp"

#include "core/text_escape.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/predict_json.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

std::string device_name(const explore::CompareRow& row) {
    return row.devices > 1 ? fmt::format("{} x{}", row.hardware, row.devices) : row.hardware;
}

std::string optional_number(const std::optional<double>& value) {
    return value ? core::format_si(*value) : std::string("-");
}

}  // namespace

std::string compare_to_text(const std::string& model, const engine::Workload& workload,
                            const std::vector<explore::CompareRow>& rows) {
    std::string text = fmt::format("{}: best first\n", model);
    text += workload.is_request() ? fmt::format("  workload      {:.0f} streams, prompt {:.0f}, output {:.0f} tokens\n",
                                                workload.batch, *workload.prompt, workload.output.value_or(1.0))
                                  : fmt::format("  workload      {:.0f} streams at {:.0f} tokens of context\n",
                                                workload.batch, workload.context);
    for (const auto& row : rows) {
        if (!row.deployment) continue;
        const Conditions c = conditions_of(row.hardware, model, *row.deployment);
        text += fmt::format("  {:<13} weights {}, KV cache {}, activations {}, runtime {}, clocks {}\n",
                            device_name(row), c.weights, c.kv, c.activation, c.runtime, c.clocks);
    }
    text += "\n";
    const bool request = workload.is_request();
    std::vector<std::string> headers{"hardware", "tok/s/stream", "TTFT"};
    if (request) headers.push_back("last token");
    for (const char* header : {"headroom", "max batch", "tok/s total", "at batch", "tok/J", "$/M tokens"}) headers.push_back(header);
    TextTable table(headers);
    for (const auto& row : rows) {
        if (!row.error.empty()) {
            std::vector<std::string> cells(headers.size());
            cells[0] = device_name(row);
            cells[1] = fmt::format("cannot run: {}", row.error);
            table.add_row(cells);
            continue;
        }
        std::vector<std::string> cells{device_name(row), core::format_si(row.tokens_per_s_per_stream),
                                       core::format(row.ttft)};
        if (request) cells.push_back(row.time_to_last_token ? core::format(*row.time_to_last_token) : "-");
        for (std::string cell :
             {fmt::format("{}{}", row.headroom.value < 0 ? "-" : "", core::format_bytes(std::fabs(row.headroom.value))),
              std::to_string(row.max_batch), core::format_si(row.tokens_per_s_total),
              std::to_string(row.throughput_batch), optional_number(row.tokens_per_joule),
              optional_number(row.usd_per_million_tokens) +
                  (row.usd_per_million_tokens ? price_mark(row.price_basis) : std::string())}) {
            cells.push_back(std::move(cell));
        }
        table.add_row(cells);
    }
    text += table.render();
    text += "(tok/s/stream, TTFT, last token and headroom at the requested concurrency; tok/s total, tok/J and\n"
            " $/M at the batch shown; a negative headroom means it does not fit)\n";
    text += price_marks_note("$/M tokens", rows, [](const explore::CompareRow& row) {
        return row.usd_per_million_tokens ? std::optional(row.price_basis) : std::nullopt;
    });
    return text;
}

std::string compare_to_csv(const std::string& model, const engine::Workload& workload,
                           const std::vector<explore::CompareRow>& rows) {
    std::string csv =
        "hardware,model,weights,kv,activation,runtime,clocks,devices,batch,context_tokens,prompt_tokens,output_tokens,fits,"
        "tokens_per_s_per_stream,ttft_s,time_to_last_token_s,headroom_bytes,max_batch,throughput_batch,tokens_per_s_total,tokens_per_joule,"
        "usd_per_million_tokens,error\n";
    const std::string shape = workload.is_request()
                                  ? fmt::format("{},,{},{}", workload.batch, *workload.prompt, workload.output.value_or(1.0))
                                  : fmt::format("{},{},,", workload.batch, workload.context);
    for (const auto& row : rows) {
        Conditions conditions;
        if (row.deployment) conditions = conditions_of(row.hardware, model, *row.deployment);
        csv += fmt::format("{},{},{},{},{},{},{},{},{},", core::csv_field(row.hardware), core::csv_field(model),
                           conditions.weights, conditions.kv, conditions.activation, conditions.runtime, conditions.clocks,
                           row.devices, shape);
        csv += fmt::format("{},{:.9g},{:.9g},{},{:.9g},{},{},{:.9g},{},{},{}\n",
                           row.fits ? "true" : "false", row.tokens_per_s_per_stream, row.ttft.value,
                           row.time_to_last_token ? fmt::format("{:.9g}", row.time_to_last_token->value) : "",
                           row.headroom.value,
                           row.max_batch, row.throughput_batch, row.tokens_per_s_total,
                           row.tokens_per_joule ? fmt::format("{:.9g}", *row.tokens_per_joule) : "",
                           row.usd_per_million_tokens ? fmt::format("{:.9g}", *row.usd_per_million_tokens) : "",
                           core::csv_field(row.error));
    }
    return csv;
}

nlohmann::json compare_to_json(const std::string& model, const engine::Workload& workload,
                               const std::vector<explore::CompareRow>& rows,
                               const workload::WorkloadScenario* scenario) {
    nlohmann::json document;
    document["schema_version"] = kSchemaVersion;
    document["model"] = model;
    // The workload every row shares; each row's own conditions follow it (the activation
    // datatype, for one, is resolved per device).
    Conditions shared;
    shared.workload = workload;
    shared.scenario = scenario;
    nlohmann::json shared_block = conditions_to_json(shared);
    for (const char* per_device : {"weights", "kv", "activation", "tensor_parallel", "runtime", "clocks",
                                   "compute_clock_share", "memory_clock_share"}) {
        shared_block.erase(per_device);
    }
    document["conditions"] = std::move(shared_block);
    nlohmann::json list = nlohmann::json::array();
    for (const auto& row : rows) {
        nlohmann::json entry = {{"hardware", row.hardware},
                                {"devices", row.devices},
                                {"fits", row.fits},
                                {"tokens_per_s_per_stream", row.tokens_per_s_per_stream},
                                {"ttft_s", row.ttft},
                                {"time_to_last_token_s", row.time_to_last_token ? nlohmann::json(row.time_to_last_token->value)
                                                                                : nlohmann::json(nullptr)},
                                {"headroom_bytes", row.headroom},
                                {"max_batch", row.max_batch},
                                {"throughput_batch", row.throughput_batch},
                                {"tokens_per_s_total", row.tokens_per_s_total}};
        entry["tokens_per_joule"] = row.tokens_per_joule ? nlohmann::json(*row.tokens_per_joule) : nlohmann::json(nullptr);
        entry["usd_per_million_tokens"] =
            row.usd_per_million_tokens ? nlohmann::json(*row.usd_per_million_tokens) : nlohmann::json(nullptr);
        entry["price_basis"] = row.usd_per_million_tokens
                                   ? nlohmann::json(core::name_of(profiles::kPriceBasisNames, row.price_basis))
                                   : nlohmann::json(nullptr);
        if (row.deployment) entry["conditions"] = conditions_to_json(conditions_of(row.hardware, model, *row.deployment, workload));
        if (!row.error.empty()) entry["error"] = row.error;
        list.push_back(std::move(entry));
    }
    document["rows"] = std::move(list);
    return document;
}

}  // namespace decodesim::report
