#pragma once
// A JSON document as the Python objects json.loads would give for its text: dicts, lists, str,
// int, float, bool and None.

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace decodesim::python {

pybind11::object to_python(const nlohmann::json& node);

}  // namespace decodesim::python
