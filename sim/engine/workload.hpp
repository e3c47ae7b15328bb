#pragma once
// The operating point a user asks about.

#include <optional>

namespace decodesim::engine {

// The first and last context of a request's decode steps, and their mean: decode steps generate
// tokens 2..N, and the step for token j holds P + j - 1 tokens. Every average over a request's
// decode (predictions, the steady state, replayed closed loops) is taken over this range.
struct DecodeRange {
    double first;
    double last;
    double mean() const { return (first + last) / 2.0; }
};
inline DecodeRange decode_range(double prompt, double output) {
    return {prompt + 1.0, prompt + (output - 1.0 > 1.0 ? output - 1.0 : 1.0)};
}

struct Workload {
    double batch = 1.0;  // concurrent sequences
    // Either one decode step at `context` tokens ...
    double context = 1.0;
    // ... or a request: prompt tokens in, output tokens out (then `context` is ignored).
    std::optional<double> prompt;
    std::optional<double> output;
    // Tokens at the start of every prompt already in the KV cache, shared by all streams (a
    // prefix-cache hit: a system prompt, a document several questions share). Prefill skips them
    // and the cache holds them once; each decode step still reads them for every stream.
    double shared_prefix = 0.0;
    // Images each prompt carries (engine::with_images), their side in pixels: their tokens are
    // already counted in `prompt`; the vision encoder's pass over them adds to the first token. A
    // model with cross-attention layers reads each image's `image_states` states there instead
    // (0 for a model whose image tokens join the prompt).
    double images = 0.0;
    double image_size = 0.0;
    double image_states = 0.0;

    bool is_request() const { return prompt.has_value(); }
    // The longest context a stream holds: the step's context, or a request's prompt plus output.
    double max_context() const { return is_request() ? *prompt + output.value_or(1.0) : context; }

    // The prompt prefilled before decoding: the request's, or for one step its context.
    double prompt_tokens() const { return is_request() ? *prompt : context; }

    static Workload step(double batch, double context) { return {batch, context, std::nullopt, std::nullopt, 0.0, 0.0, 0.0}; }
    static Workload request(double batch, double prompt, double output) { return {batch, 1.0, prompt, output, 0.0, 0.0, 0.0}; }
};

}  // namespace decodesim::engine
