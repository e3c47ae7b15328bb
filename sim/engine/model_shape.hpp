#pragma once
// Facts derived from a model's shape: which layers slide or route to experts, and how many
// parameters the shape implies (to check a profile's stated count).

#include "engine/workload.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::engine {

using profiles::ModelProfile;

// Whether layer i has a token mixer (attention or recurrent) and an MLP: both, unless the model's
// layer_pattern makes each layer a single block (Nemotron-H).
bool has_mixer(const ModelProfile& model, int layer);
bool has_feedforward(const ModelProfile& model, int layer);
// HF DeepSeek rule: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0;
// with a layer pattern, the 'E' layers.
bool is_moe_layer(const ModelProfile& model, int layer);
// Llama 3.2 Vision: layer i attends to the images' states (ModelProfile::cross_attention_layers).
bool is_cross_attention_layer(const ModelProfile& model, int layer);
// Layer i is global when (i + 1) % pattern == 0; every other layer slides (all, when pattern is 0).
bool is_sliding_layer(const ModelProfile& model, int layer);

// Hybrid models: layer i is a recurrent (linear-attention or Mamba) layer unless
// i % attention_period == attention_offset; every layer attends when the model has no recurrent layers.
bool is_recurrent_layer(const ModelProfile& model, int layer);
// Llama 4: layer i attends within its chunk unless (i + 1) % pattern == 0 (a global NoPE layer).
bool is_chunked_layer(const ModelProfile& model, int layer);

// DeepSeek-V4: layer i's compress ratio (profiles::CompressedAttention); 0 for a layer that keeps
// only its window, and for every layer of a model without compressed attention.
int compress_ratio(const ModelProfile& model, int layer);

int moe_layer_count(const ModelProfile& model);
int sliding_layer_count(const ModelProfile& model);
int recurrent_layer_count(const ModelProfile& model);
int chunked_layer_count(const ModelProfile& model);

struct ParameterCount {
    double total = 0;   // every weight, embeddings included
    // Weights one token's forward pass uses (top-k experts), embedding table included, as Mistral,
    // Qwen and DeepSeek count it (OpenAI's GPT-OSS figures exclude it).
    double active = 0;
};

ParameterCount count_parameters(const ModelProfile& model);

// Parameters of one layer's attention block (projections only).
double attention_parameters(const ModelProfile& model);
// One recurrent layer's mixer (Gated DeltaNet or Mamba) by the matrices a pass reads: input-side
// projections, the output projection, and the convolution and per-channel vectors.
struct RecurrentMixer {
    double input = 0;
    double output = 0;
    double vectors = 0;
    double total() const { return input + output + vectors; }
};
RecurrentMixer recurrent_mixer(const ModelProfile& model);
// recurrent_mixer(model).total(); 0 for a model without recurrent layers.
double recurrent_parameters(const ModelProfile& model);
// A compressor's width in rows of its head: 2 at kSparseCompressRatio, whose blocks overlap (each
// row pools the block before it too), 1 at any other ratio (DeepSeek-V4's Compressor, coff).
double compressor_overlap(int ratio);
// Parameters of one compressed-attention layer of the given ratio (DeepSeek-V4's Attention: the
// query latent and its norm, the query heads, the one key-value head and its norm, the grouped
// output projection, the per-head attention sinks; a compressor for a ratio above 0, and the
// lightning indexer with its own compressor at kSparseCompressRatio).
double compressed_attention_parameters(const ModelProfile& model, int ratio);
// The hyper-connection mixing weights of one layer (its attention and MLP blocks), and of the
// head that folds the copies back into one hidden state; 0 for a plain residual stream.
double hyper_connection_parameters(const ModelProfile& model);
double hyper_connection_head_parameters(const ModelProfile& model);
// Parameters of one layer's DSA lightning indexer; 0 without sparse attention.
double indexer_parameters(const ModelProfile& model);
// Elements of one recurrent layer's state for one sequence: the recurrent state proper and the
// short-convolution window (kernel - 1 earlier inputs).
double recurrent_state_elements(const ModelProfile& model);
double recurrent_conv_elements(const ModelProfile& model);
// Parameters of one dense MLP (or shared expert) of the given intermediate size, at hidden width.
double mlp_parameters(const ModelProfile& model, double intermediate_size);
// The width a routed expert reads and writes: the hidden size, or LatentMoE's latent.
double expert_width(const ModelProfile& model);
// Parameters of one routed expert.
double expert_parameters(const ModelProfile& model);

// A vision encoder (profiles::VisionEncoder) on one image of `image_size` pixels a side, resized
// to a whole number of merged patches as Qwen2.5-VL's processor resizes it (to the nearest
// multiple of patch x merge pixels, at least one): the language model's tokens, the encoder's
// patches, and the encoder's FLOPs (2 a parameter and patch, plus attention's 4 x patches x
// attended patches x width a layer, the windowed layers attending within their window).
double image_tokens(const profiles::VisionEncoder& vision, double image_size);
// A tiled encoder (VisionEncoder::tile_size): the tiles an image of `image_size` pixels a side
// takes, ceil(size / tile)^2 up to max_tiles (vLLM's mllama processor takes the tiles the image
// needs; transformers pads every image to max_tiles), and the states the cross-attention layers
// read: a tile's patches and its class token.
double image_tiles(const profiles::VisionEncoder& vision, double image_size);
double image_states(const profiles::VisionEncoder& vision, double image_size);
double image_patches(const profiles::VisionEncoder& vision, double image_size);
double vision_encoder_flops(const profiles::VisionEncoder& vision, double image_size);

// The request with `images` images of `image_size` pixels a side (0: the encoder's default size)
// in each prompt: their tokens added to the prompt, the images kept for the encoder's pass. The
// model must have a vision encoder.
Workload with_images(Workload workload, const ModelProfile& model, double images, double image_size);

}  // namespace decodesim::engine
