#include "engine/operators.hpp"

namespace decodesim::engine {

std::string_view operator_name(OperatorKind kind) {
    switch (kind) {
        case OperatorKind::embedding: return "embedding";
        case OperatorKind::qkv_projection: return "qkv_projection";
        case OperatorKind::attention_score: return "attention_score";
        case OperatorKind::attention_value: return "attention_value";
        case OperatorKind::kv_write: return "kv_write";
        case OperatorKind::output_projection: return "output_projection";
        case OperatorKind::mlp: return "mlp";
        case OperatorKind::router: return "router";
        case OperatorKind::experts: return "experts";
        case OperatorKind::shared_experts: return "shared_experts";
        case OperatorKind::norms: return "norms";
        case OperatorKind::lm_head: return "lm_head";
        case OperatorKind::all_reduce: return "all_reduce";
    }
    return "?";
}

double StepCosts::total_flops() const {
    double flops = 0.0;
    for (const auto& op : operators) flops += op.flops;
    return flops;
}

double StepCosts::total_bytes() const {
    double bytes = 0.0;
    for (std::size_t i = 0; i < operators.size(); ++i) {
        if (static_cast<OperatorKind>(i) != OperatorKind::all_reduce) bytes += operators[i].bytes;
    }
    return bytes;
}

}  // namespace decodesim::engine
