// The explorer's window into the engine: the CLI run in-process, its streams captured, and a
// file reader for what a command wrote (curve --svg). All physics stays in the C++ below run_cli.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace {

// Where --embed-file puts hardware_profiles/ and model_profiles/ (sim/web/CMakeLists.txt).
constexpr const char* kEmbeddedProfileRoot = "/profiles";

// Runs `decodesim <args...>`; returns {exit_code, out, err}. `on_progress`, when a function, is
// called as on_progress(what, done, total) at each whole percent of a long command (plan, serve,
// frontier): the page's worker posts it to the page.
emscripten::val run_with_progress(const emscripten::val& js_args, const emscripten::val& on_progress) {
    // Not overwriting: a page (or a test under node) may point the CLI elsewhere first.
    setenv("DECODESIM_PROFILE_DIR", kEmbeddedProfileRoot, 0);
    const auto args = emscripten::vecFromJSArray<std::string>(js_args);
    std::ostringstream out;
    std::ostringstream err;
    const std::function<void(const std::string&, double, double)> report =
        [&on_progress](const std::string& what, double done, double total) { on_progress(what, done, total); };
    decodesim::cli::Io io{out, err};
    if (on_progress.typeOf().as<std::string>() == "function") io.progress = &report;
    const int exit_code = decodesim::cli::run_cli(args, io);
    emscripten::val result = emscripten::val::object();
    result.set("exit_code", exit_code);
    result.set("out", out.str());
    result.set("err", err.str());
    return result;
}

emscripten::val run(const emscripten::val& js_args) { return run_with_progress(js_args, emscripten::val::undefined()); }

// The shipped profile ids of one kind ("hardware" or "models"), as the catalog resolves them.
// `profiles list` prints the same ids, but its table shortens long ones.
emscripten::val profile_ids(const std::string& kind) {
    setenv("DECODESIM_PROFILE_DIR", kEmbeddedProfileRoot, 0);
    const decodesim::profiles::Catalog catalog(decodesim::profiles::default_profile_root());
    const auto ids = kind == "hardware" ? catalog.hardware_ids() : catalog.model_ids();
    emscripten::val list = emscripten::val::array();
    for (const auto& id : ids) list.call<void>("push", id);
    return list;
}

// The whole file at `path` in the module's filesystem, or null when it cannot be read.
emscripten::val read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return emscripten::val::null();
    std::ostringstream contents;
    contents << file.rdbuf();
    return emscripten::val(contents.str());
}

}  // namespace

EMSCRIPTEN_BINDINGS(decodesim_explorer) {
    emscripten::function("run", &run);
    emscripten::function("run_with_progress", &run_with_progress);
    emscripten::function("read_file", &read_file);
    emscripten::function("profile_ids", &profile_ids);
}
