#pragma once
// The operating point a user asks about.

#include <optional>

namespace decodesim::engine {

struct Workload {
    double batch = 1.0;  // concurrent sequences
    // Either one decode step at `context` tokens ...
    double context = 1.0;
    // ... or a request: prompt tokens in, output tokens out (then `context` is ignored).
    std::optional<double> prompt;
    std::optional<double> output;

    bool is_request() const { return prompt.has_value(); }
    // The longest context a stream holds: the step's context, or a request's prompt plus output.
    double max_context() const { return is_request() ? *prompt + output.value_or(1.0) : context; }

    static Workload step(double batch, double context) { return {batch, context, std::nullopt, std::nullopt}; }
    static Workload request(double batch, double prompt, double output) { return {batch, 1.0, prompt, output}; }
};

}  // namespace decodesim::engine
