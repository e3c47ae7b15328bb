#pragma once
// Engine results into NumPy arrays without a copy.

#include <pybind11/numpy.h>

#include <utility>
#include <vector>

namespace decodesim::python {

// A NumPy array that takes over `values` without copying them.
template <typename T>
pybind11::array_t<T> array_of(std::vector<T>&& values) {
    auto* owned = new std::vector<T>(std::move(values));
    pybind11::capsule free_when_done(owned, [](void* pointer) { delete static_cast<std::vector<T>*>(pointer); });
    return pybind11::array_t<T>({owned->size()}, {sizeof(T)}, owned->data(), free_when_done);
}

}  // namespace decodesim::python
