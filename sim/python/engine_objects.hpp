#pragma once
// The engine's own types as Python objects (docs/python.md, "The objects"): Hardware, Model and
// Runtime profiles, a Deployment and a Workload as the command line's options hold them, and an
// Evaluator that resolves them once, as every command does, and then predicts at engine speed.

#include <pybind11/pybind11.h>

namespace decodesim::python {

// Adds Hardware, Model, Runtime, Deployment, Workload, Evaluator, Prediction and its parts to
// `module`, and translates the engine's exceptions into the package's (decodesim.InputError and
// the rest, looked up when raised).
void bind_engine_objects(pybind11::module_& module);

}  // namespace decodesim::python
