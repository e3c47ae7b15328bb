#include "explore/what_if.hpp"

#include <algorithm>

#include "explore/knee.hpp"

namespace decodesim::explore {

namespace {

using profiles::HardwareProfile;

engine::Prediction evaluate(const profiles::ModelProfile& model, const HardwareProfile& hardware,
                            const engine::Deployment& deployment, engine::Workload workload, double batch) {
    workload.batch = batch;
    const engine::Evaluator evaluator(model, hardware, deployment);
    return evaluator.predict(workload);
}

// The point itself at `batch`, its draft model included (speculation is reported beside it).
engine::Prediction evaluate_point(const engine::OperatingPoint& point, double batch) {
    engine::OperatingPoint at = point;
    at.workload.batch = batch;
    const engine::Evaluator evaluator(at);
    return evaluator.predict(at.workload);
}

// The batch a deployment can actually run: the request, capped by the memory wall, at least 1.
double runnable_batch(double requested, long long max_batch) {
    return std::max(1.0, std::min(requested, static_cast<double>(max_batch)));
}

}  // namespace

Explanation explain(const engine::OperatingPoint& point) {
    const profiles::ModelProfile& model = point.model;
    const HardwareProfile& hardware = point.hardware;
    const engine::Deployment& deployment = point.deployment;
    const engine::Workload& workload = point.workload;
    Explanation result;
    result.requested_batch = workload.batch;
    const engine::Prediction requested = evaluate_point(point, workload.batch);
    result.capped_by_memory = !requested.memory.fits;
    // With KV offload the batch beyond the memory wall runs, its cache spilled to CPU memory.
    result.effective_batch =
        requested.memory.fits ? workload.batch : runnable_batch(workload.batch, requested.memory.max_batch);
    result.prediction =
        result.effective_batch == workload.batch ? requested : evaluate_point(point, result.effective_batch);
    const double today = result.prediction.decode.tokens_per_s_total;
    const double today_ttft = result.prediction.ttft.value;
    const double today_request = result.prediction.request ? result.prediction.request->end_to_end.value : 0.0;
    // Decode tokens/s over today's; TTFT and the whole request as new time over today's.
    const auto ratios = [&](const engine::Prediction& doubled, double& decode, double& ttft, double& request) {
        decode = doubled.decode.tokens_per_s_total / today;
        ttft = today_ttft > 0.0 ? doubled.ttft.value / today_ttft : 1.0;
        request = today_request > 0.0 && doubled.request ? doubled.request->end_to_end.value / today_request : 1.0;
    };

    HardwareProfile more_bandwidth = hardware;
    more_bandwidth.memory_bandwidth = hardware.memory_bandwidth * 2.0;
    ratios(evaluate(model, more_bandwidth, deployment, workload, result.effective_batch), result.what_if.bandwidth_x2,
           result.what_if.bandwidth_x2_ttft, result.what_if.bandwidth_x2_request);

    HardwareProfile more_flops = hardware;
    for (core::FlopRate& peak : more_flops.peak_ops_per_s) peak = peak * 2.0;
    // Twice the compute is twice the SMs too: an issue-bound kernel (engine::kernel_matmul_peak)
    // gains from it as a tensor-bound one does.
    if (more_flops.compute_units) *more_flops.compute_units *= 2;
    ratios(evaluate(model, more_flops, deployment, workload, result.effective_batch), result.what_if.flops_x2,
           result.what_if.flops_x2_ttft, result.what_if.flops_x2_request);

    HardwareProfile more_capacity = hardware;
    more_capacity.memory_capacity = hardware.memory_capacity * 2.0;
    const engine::Prediction doubled =
        evaluate(model, more_capacity, deployment, workload, workload.batch);
    result.max_batch_with_capacity_x2 = doubled.memory.max_batch;
    if (result.capped_by_memory) {
        const double batch = runnable_batch(workload.batch, doubled.memory.max_batch);
        result.what_if.capacity_x2 =
            evaluate(model, more_capacity, deployment, workload, batch).decode.tokens_per_s_total / today;
    }

    if (hardware.interconnect && deployment.parallelism.any()) {
        HardwareProfile faster_link = hardware;
        faster_link.interconnect->bandwidth = hardware.interconnect->bandwidth * 2.0;
        if (faster_link.scale_out) faster_link.scale_out->bandwidth = hardware.scale_out->bandwidth * 2.0;
        ratios(evaluate(model, faster_link, deployment, workload, result.effective_batch), result.what_if.interconnect_x2,
               result.what_if.interconnect_x2_ttft, result.what_if.interconnect_x2_request);
    }

    result.what_if.compute_clock_share = deployment.clocks.compute_share;
    if (deployment.clocks.choice.condition != engine::ClockCondition::peak) {
        engine::DeploymentChoice at_peak{deployment.weights, deployment.kv, deployment.activation, deployment.runtime, deployment.backend,
                                         deployment.parallelism, {engine::ClockCondition::peak, std::nullopt},
                                         deployment.kv_offload, {},  // plain decoding: what clocks do to it
                                         deployment.attention};
        const engine::Prediction peak = evaluate(model, hardware, engine::resolve_deployment(hardware, model, at_peak),
                                                 workload, result.effective_batch);
        result.what_if.peak_clocks = peak.decode.tokens_per_s_total / today;
        result.what_if.peak_clocks_ttft = peak.ttft / result.prediction.ttft;
    }

    const engine::Evaluator evaluator(model, hardware, deployment);
    result.compute_bound_batch = compute_bound_batch(evaluator, result.prediction.decode.context);
    result.matmul_compute_bound_batch = matmul_compute_bound_batch(evaluator);
    result.kv_outweighs_weights_context = kv_outweighs_weights_context(evaluator, result.effective_batch);
    return result;
}

}  // namespace decodesim::explore
