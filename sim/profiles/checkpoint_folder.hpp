#pragma once
// A model given as checkpoint files rather than a profile: a Hugging Face model folder (config.json
// with *.safetensors shards and/or model.safetensors.index.json, or *.gguf files) or a single .gguf.
// The shape comes from config.json (or a GGUF's metadata); the checkpoint's headers add what the
// files really store: their weights, bytes and exact bits per weight (ModelProfile::checkpoint_*).

#include <cstdint>
#include <string>

#include "profiles/model_profile.hpp"

namespace decodesim::profiles {

// The first bytes of a file, for formats whose header is all decodesim reads.
struct FileHead {
    std::string bytes;         // at most the `max_bytes` asked for
    std::uint64_t file_size = 0;
};

// Reads the first `max_bytes` of the regular file at `path`. Anything else at the path (missing, a
// folder, a FIFO, a device) is refused with the same messages as read_input_file.
FileHead read_file_head(const std::string& path, std::size_t max_bytes);

// True when `folder` holds something load_model_folder reads (config.json or a .gguf file).
bool is_model_folder(const std::string& folder);

// The model a folder holds. config.json gives the shape; safetensors headers (or, without shards,
// the index's total_size) or GGUF headers give the checkpoint_* fields, and a GGUF's file type
// gives checkpoint_weights when config.json states no quantization_config. Without config.json
// the folder's GGUF checkpoint (one file, or the shards of one split file) gives everything.
// Several different .gguf files are refused: the user names the one meant.
ModelProfile load_model_folder(const std::string& folder);

}  // namespace decodesim::profiles
