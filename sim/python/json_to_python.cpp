#include "python/json_to_python.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace py = pybind11;

namespace decodesim::python {

py::object to_python(const nlohmann::json& node) {
    switch (node.type()) {
        case nlohmann::json::value_t::object: {
            py::dict result;
            for (const auto& [key, value] : node.items()) result[py::str(key)] = to_python(value);
            return py::object(std::move(result));
        }
        case nlohmann::json::value_t::array: {
            py::list result;
            for (const auto& value : node) result.append(to_python(value));
            return py::object(std::move(result));
        }
        case nlohmann::json::value_t::string: return py::str(node.get_ref<const std::string&>());
        case nlohmann::json::value_t::boolean: return py::bool_(node.get<bool>());
        case nlohmann::json::value_t::number_integer: return py::int_(node.get<std::int64_t>());
        case nlohmann::json::value_t::number_unsigned: return py::int_(node.get<std::uint64_t>());
        // A number that is not finite is null in the command line's text (json_text).
        case nlohmann::json::value_t::number_float: {
            const double value = node.get<double>();
            return std::isfinite(value) ? py::object(py::float_(value)) : py::object(py::none());
        }
        default: return py::none();
    }
}

}  // namespace decodesim::python
