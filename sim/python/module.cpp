// decodesim's Python binding, the module `decodesim._decodesim` under the package in decodesim/.
// It adds no physics and no parsing of its own. The CLI-shaped calls run the command line
// in-process (cli::run_cli), so a keyword argument means what its flag means, with the same checks
// and the same messages; `sweep` fills NumPy arrays directly (report::SweepTable), never passing
// through text. The objects (engine_objects.hpp) hold the engine's own types.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "core/error.hpp"
#include "profiles/catalog.hpp"
#include "python/engine_objects.hpp"
#include "python/numpy_arrays.hpp"
#include "report/explore/sweep_table.hpp"

namespace py = pybind11;

namespace {

using decodesim::cli::Io;
using decodesim::cli::run_cli;
using decodesim::python::array_of;

// (exit code, standard output, standard error) of `decodesim <args...>`.
py::tuple run(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    int exit_code = 0;
    {
        py::gil_scoped_release unlocked;  // the engine touches no Python object
        exit_code = run_cli(args, Io{out, err});
    }
    return py::make_tuple(exit_code, out.str(), err.str());
}

// `decodesim <args...>`, a sweep command line ("sweep" and its flags, after any --profiles-dir), into columns: (exit code, standard error, table) where table is None
// unless the sweep ran, else a dict of NumPy arrays and the per-deployment text columns.
py::tuple sweep(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    decodesim::report::SweepTable table;
    const std::function<void(const decodesim::explore::SweepPoint&)> collect =
        [&table](const decodesim::explore::SweepPoint& point) { table.add(point); };
    int exit_code = 0;
    {
        py::gil_scoped_release unlocked;
        exit_code = run_cli(args, Io{out, err, nullptr, nullptr, &collect});
    }
    if (exit_code != 0) return py::make_tuple(exit_code, err.str(), py::none());

    py::dict numbers;
    for (auto& [name, values] : table.numbers()) numbers[py::str(std::string(name))] = array_of(std::move(values));
    py::list deployments;
    for (const auto& deployment : table.deployments()) {
        py::dict entry;
        entry["hardware"] = deployment.hardware;
        entry["model"] = deployment.model;
        entry["weights"] = deployment.weights;
        entry["kv"] = deployment.kv;
        entry["activation"] = deployment.activation;
        entry["runtime"] = deployment.runtime;
        entry["clocks"] = deployment.clocks;
        entry["rows"] = deployment.rows;
        deployments.append(entry);
    }
    py::dict result;
    result["numbers"] = numbers;
    result["deployments"] = deployments;
    result["bound"] = array_of(std::move(table.bound()));
    result["bound_names"] = decodesim::report::SweepTable::bound_names();
    result["fits"] = array_of(std::move(table.fits()));
    return py::make_tuple(exit_code, err.str(), result);
}

// The ids in the catalog under `root` (the command line's default root when empty), as
// (error message or None, {"hardware": [...], "models": [...], "runtimes": [...]}).
py::tuple catalog_ids(const std::string& root) {
    try {
        const decodesim::profiles::Catalog catalog(root.empty() ? decodesim::profiles::default_profile_root() : root);
        py::dict ids;
        ids["hardware"] = catalog.hardware_ids();
        ids["models"] = catalog.model_ids();
        ids["runtimes"] = catalog.runtime_ids();
        return py::make_tuple(py::none(), ids);
    } catch (const decodesim::core::InputError& error) {
        std::string message;
        for (const auto& diagnostic : error.diagnostics()) message += diagnostic.to_string();
        return py::make_tuple(message, py::none());
    }
}

}  // namespace

PYBIND11_MODULE(_decodesim, module) {
    module.doc() = "decodesim's engine; use the decodesim package, not this module";
    module.def("run", &run, "(exit code, stdout, stderr) of `decodesim ARGS...`");
    module.def("sweep", &sweep, "(exit code, stderr, columns or None) of `decodesim ARGS...`, a sweep command line");
    module.def("catalog_ids", &catalog_ids, "The hardware and model ids under a profile root");
    decodesim::python::bind_engine_objects(module);
}
