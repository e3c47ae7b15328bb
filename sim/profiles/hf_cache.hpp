#pragma once
// Finds a model named by its Hugging Face repository id ("Qwen/Qwen3-32B") in the local Hugging
// Face hub cache, the folder `huggingface-cli download` and `transformers` fill. Never the network.
//
// The cache layout (huggingface_hub's file_download.py, documented at
// huggingface.co/docs/huggingface_hub/guides/manage-cache): <cache>/models--ORG--NAME/ holds
// refs/<branch> (a file with the commit hash), snapshots/<hash>/ (the repository's files, as links
// into blobs/) and blobs/. decodesim reads the snapshot refs/main names; without refs/main, the
// only snapshot; with several snapshots and no refs/main it refuses to guess (docs/decisions.md).

#include <optional>
#include <string>

namespace decodesim::profiles {

// Whether `text` has the shape of a Hugging Face repository id, ORG/NAME: two names of letters,
// digits, '.', '-' and '_', each starting with a letter or digit, at most 96 characters each
// (the hub's own limits), and no file extension decodesim reads itself (.yaml, .json, .gguf).
bool is_hf_repo_id(const std::string& text);

// The hub cache folder, by huggingface_hub's precedence: HF_HUB_CACHE; else HF_HOME/hub; else
// XDG_CACHE_HOME/huggingface/hub; else HOME/.cache/huggingface/hub. Null arguments are unset
// variables; empty when nothing is set at all.
std::string hf_hub_cache_folder(const char* hf_hub_cache, const char* hf_home, const char* xdg_cache_home,
                                const char* home);
// The same from this process's environment (read once, at the command line's edge).
std::string default_hf_hub_cache();

// The repository's folder in the cache: <cache>/models--ORG--NAME.
std::string hf_cache_repo_folder(const std::string& cache, const std::string& repo_id);

// The snapshot folder of `repo_id` in `cache`, or nullopt when the cache holds no snapshot of it.
// Throws an InputError naming the folder when refs/main names a snapshot that is not there, or when
// several snapshots stand without refs/main.
std::optional<std::string> find_hf_snapshot(const std::string& cache, const std::string& repo_id);

}  // namespace decodesim::profiles
