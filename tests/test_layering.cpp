// The engine and scenario layers stay pure: no YAML, no logging, no streams (style.md).

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

TEST_CASE("engine/ and scenarios/ include no YAML, logging or stream headers") {
    namespace fs = std::filesystem;
    const fs::path root = fs::path(DECODESIM_ROOT) / "sim";
    int files = 0;
    for (const char* layer : {"engine", "scenarios"}) {
        if (!fs::exists(root / layer)) continue;
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file()) continue;
            std::ifstream file(entry.path());
            std::stringstream text;
            text << file.rdbuf();
            const std::string source = text.str();
            ++files;
            CAPTURE(entry.path().string());
            for (const char* forbidden : {"yaml-cpp", "spdlog", "<iostream>", "<fstream>", "<sstream>", "nlohmann",
                                          "profiles/catalog", "loader.hpp", "CLI/"}) {
                CAPTURE(forbidden);
                CHECK(source.find(forbidden) == std::string::npos);
            }
        }
    }
    CHECK(files > 10);
}
