#include "profiles/hf_cache.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxRepoNamePart = 96;

bool is_name_part(std::string_view part) {
    if (part.empty() || part.size() > kMaxRepoNamePart) return false;
    const auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    if (!word(part.front())) return false;
    return std::all_of(part.begin(), part.end(), [&](char c) { return word(c) || c == '.' || c == '-' || c == '_'; });
}

bool set(const char* value) { return value != nullptr && *value != '\0'; }

// A refs/ file holds a 40-hex-digit commit hash (and perhaps a newline).
std::string read_ref(const fs::path& ref) {
    std::string text = read_input_file(ref.string(), 4096, "a ref file holds one commit hash");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    const bool hash = !text.empty() && text.size() <= 64 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (!hash) core::refuse_file(ref.string(), "", "expected a commit hash (the hub cache's refs/main)");
    return text;
}

}  // namespace

bool is_hf_repo_id(const std::string& text) {
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos) return false;
    for (const char* extension : {".yaml", ".yml", ".json", ".gguf"}) {
        if (text.ends_with(extension)) return false;
    }
    return is_name_part(std::string_view(text).substr(0, slash)) && is_name_part(std::string_view(text).substr(slash + 1));
}

std::string hf_hub_cache_folder(const char* hf_hub_cache, const char* hf_home, const char* xdg_cache_home,
                                const char* home) {
    if (set(hf_hub_cache)) return hf_hub_cache;
    if (set(hf_home)) return (fs::path(hf_home) / "hub").string();
    if (set(xdg_cache_home)) return (fs::path(xdg_cache_home) / "huggingface" / "hub").string();
    if (set(home)) return (fs::path(home) / ".cache" / "huggingface" / "hub").string();
    return "";
}

std::string default_hf_hub_cache() {
    return hf_hub_cache_folder(std::getenv("HF_HUB_CACHE"), std::getenv("HF_HOME"), std::getenv("XDG_CACHE_HOME"),
                               std::getenv("HOME"));
}

std::string hf_cache_repo_folder(const std::string& cache, const std::string& repo_id) {
    std::string folder = "models--" + repo_id;
    folder.replace(folder.find('/'), 1, "--");
    return (fs::path(cache) / folder).string();
}

std::optional<std::string> find_hf_snapshot(const std::string& cache, const std::string& repo_id) {
    if (cache.empty()) return std::nullopt;
    const fs::path repo(hf_cache_repo_folder(cache, repo_id));
    const fs::path snapshots = repo / "snapshots";
    if (path_kind(snapshots.string()) != PathKind::folder) return std::nullopt;
    const fs::path main_ref = repo / "refs" / "main";
    if (path_kind(main_ref.string()) != PathKind::missing) {
        const fs::path snapshot = snapshots / read_ref(main_ref);
        if (path_kind(snapshot.string()) != PathKind::folder) {
            core::refuse_file(main_ref.string(), "",
                              fmt::format("names snapshot {}, which is not in {} (an interrupted download?)",
                                          snapshot.filename().string(), snapshots.string()));
        }
        return snapshot.string();
    }
    std::vector<std::string> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(snapshots, error)) {
        if (path_kind(entry.path().string()) == PathKind::folder) found.push_back(entry.path().filename().string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) return std::nullopt;
    if (found.size() > 1) {
        core::refuse_file(snapshots.string(), "",
                          fmt::format("{} snapshots ({}) and no refs/main to say which is current; pass the one "
                                      "meant as a folder: --model {}",
                                      found.size(), fmt::join(found, ", "), (snapshots / found.front()).string()));
    }
    return (snapshots / found.front()).string();
}

}  // namespace decodesim::profiles
