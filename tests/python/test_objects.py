"""The Python objects (Hardware, Model, Deployment, Workload, Evaluator) against the command line.

Run as: python3 tests/python/test_objects.py BUILD_DIR [--installed] (as test_module.py).
"""

import ast
import json
import os
import subprocess
import tempfile
import unittest
import warnings

from harness import BINARY, decodesim  # the package under test (tests/python/harness.py)

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Three devices of three vendors and memory kinds: HBM (NVIDIA, AMD) and unified LPDDR (Apple).
DEVICES = ("h100-sxm", "mi300x", "apple-m4-max")


def cli_json(*args):
    """The command line's --json document, from the binary itself."""
    result = subprocess.run([BINARY, *args, "--json"], capture_output=True, text=True, check=False)
    return result.returncode, (json.loads(result.stdout) if result.returncode == 0 else result.stderr)


class SameFiguresAsTheCommandLine(unittest.TestCase):
    def test_every_shipped_model_on_three_devices_to_the_last_bit(self):
        # Each pair twice: one decode step at batch 8 and 4,096 tokens, and a request of 2,000 in,
        # 500 out. The JSON text is the shortest text that reads back to the same double, so
        # equality here is equality of the doubles. The command line runs in-process (the same
        # run_cli the binary's main calls) to keep 700-odd runs fast; the binary itself is checked
        # on a few pairs below.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", decodesim.DecodesimWarning)
            compared = 0
            for hardware in DEVICES:
                for model in decodesim.model_ids():
                    for workload, flags in ((dict(batch=8, context=4096), ["--batch", "8", "--context", "4096"]),
                                            (dict(prompt=2000, output=500), ["--prompt", "2000", "--output", "500"])):
                        code, out, err = decodesim.run("predict", "--hardware", hardware, "--model", model, *flags, "--json")
                        if code != 0:
                            # A pair the command line refuses must be refused by the objects too.
                            with self.assertRaises(decodesim.DecodesimError, msg=f"{model} on {hardware}"):
                                decodesim.Evaluator(hardware, model).predict(**workload)
                            continue
                        expected = json.loads(out)
                        point = decodesim.Evaluator(hardware, model).predict(**workload)
                        self.assertEqual(point.tokens_per_s_per_stream, expected["decode"]["tokens_per_s_per_stream"],
                                         f"{model} on {hardware} {workload}")
                        self.assertEqual(point.tokens_per_s_total, expected["decode"]["tokens_per_s_total"])
                        self.assertEqual(point.ttft_s, expected["ttft_s"])
                        self.assertEqual(point.memory.weights_bytes, expected["memory"]["weights_bytes"])
                        compared += 1
        # Every model runs somewhere: the loop compared most pairs, not a handful.
        self.assertGreater(compared, 2 * len(decodesim.model_ids()))

    def test_to_dict_is_the_binarys_document(self):
        for deployment in (decodesim.Deployment(weights="fp8", kv="fp8", runtime="sglang", tp=2),
                           decodesim.Deployment(weights="fp8", runtime="sglang", tp=2, cuda_graphs="off")):
            self._same_document(deployment)

    def _same_document(self, deployment):
        for hardware, model in (("h100-sxm", "llama-3.1-70b"), ("mi300x", "qwen3-30b-a3b")):
            point = decodesim.Evaluator(hardware, model, deployment).predict(batch=16, context=8192)
            code, expected = cli_json("predict", "--hardware", hardware, "--model", model, *deployment.flags(),
                                      "--batch", "16", "--context", "8192")
            self.assertEqual(code, 0, expected)
            self.assertEqual(point.to_dict(), expected)

    def test_an_acceptance_length_is_the_command_lines(self):
        # accept_length is --accept-length: the mean tokens a verification yields, as serving logs
        # print it; the binding passes it to the same resolver as the command line.
        deployment = decodesim.Deployment(draft="llama-3.2-1b", spec_length=3, accept_length=2.61)
        self.assertIn("--accept-length", deployment.flags())
        point = decodesim.Evaluator("h100-sxm", "llama-3.1-8b", deployment).predict(batch=4, context=2048)
        code, expected = cli_json("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", *deployment.flags(),
                                  "--batch", "4", "--context", "2048")
        self.assertEqual(code, 0, expected)
        self.assertEqual(point.to_dict(), expected)

    def test_a_workload_object_and_keywords_agree(self):
        evaluator = decodesim.Evaluator("h100-sxm", "llama-3.1-8b")
        by_object = evaluator.predict(decodesim.Workload(batch=4, prompt=1000, output=200))
        by_keywords = evaluator.predict(batch=4, prompt=1000, output=200)
        self.assertEqual(by_object.to_dict(), by_keywords.to_dict())
        self.assertEqual(by_object.request.output_tokens, 200)
        self.assertIsInstance(by_object.batch, int)
        # A scenario is the command line's --scenario: its mean request.
        code, expected = cli_json("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "chat")
        self.assertEqual(evaluator.predict(decodesim.Workload(scenario="chat")).to_dict(), expected)


class Evaluate(unittest.TestCase):
    def test_arrays_are_predict_point_by_point(self):
        import numpy

        evaluator = decodesim.Evaluator("h100-sxm", "llama-3.1-8b", decodesim.Deployment(weights="fp8"))
        batches = numpy.array([1, 8, 64, 512])
        contexts = numpy.array([[1024], [32768]])
        grid = evaluator.evaluate(batch=batches, context=contexts)
        self.assertEqual(grid["tokens_per_s_total"].shape, (2, 4))
        self.assertEqual(grid["batch"].dtype, numpy.int64)
        self.assertEqual(grid["max_batch"].dtype, numpy.int64)
        self.assertEqual(grid["fits"].dtype, numpy.bool_)
        for row, context in enumerate((1024, 32768)):
            for column, batch in enumerate((1, 8, 64, 512)):
                point = evaluator.predict(batch=batch, context=context)
                self.assertEqual(grid["tokens_per_s_total"][row, column], point.tokens_per_s_total)
                self.assertEqual(grid["ttft_s"][row, column], point.ttft_s)
                self.assertEqual(grid["max_batch"][row, column], point.memory.max_batch)
                self.assertEqual(grid["fits"][row, column], point.memory.fits)
                self.assertEqual(grid["bound"][row, column], point.bound)

    def test_requests(self):
        evaluator = decodesim.Evaluator("h100-sxm", "llama-3.1-8b")
        grid = evaluator.evaluate(batch=[1, 16], prompt=2000, output=[100, 400])
        point = evaluator.predict(batch=16, prompt=2000, output=400)
        self.assertEqual(grid["end_to_end_s"][1], point.request.end_to_end_s)

    def test_a_value_the_command_line_refuses_is_refused(self):
        evaluator = decodesim.Evaluator("h100-sxm", "llama-3.1-8b")
        with self.assertRaises(decodesim.UsageError) as raised:
            evaluator.evaluate(batch=[1, 0.5])
        self.assertIn("batch", str(raised.exception))
        with self.assertRaises(decodesim.UsageError):
            evaluator.evaluate(batch=1, prompt=100)  # a prompt without an output

    def test_data_frame_counts_are_integers(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = decodesim.Evaluator("h100-sxm", "llama-3.1-8b").evaluate(batch=[1, 4], context=[[1024], [2048]],
                                                                         as_frame=True)
        self.assertEqual(len(frame), 4)
        self.assertEqual(str(frame["batch"].dtype), "int64")
        self.assertEqual(str(frame["context"].dtype), "int64")


class ProfilesAsObjects(unittest.TestCase):
    def test_datasheet_figures(self):
        # hardware_profiles/h100-sxm.yaml: 80 GiB of HBM3 at 3.35 TB/s, 989 TFLOP/s dense BF16.
        h100 = decodesim.Hardware("h100-sxm")
        self.assertEqual(h100.memory_capacity_bytes, 80 * 2**30)
        self.assertEqual(h100.memory_bandwidth_bytes_per_s, 3.35e12)
        self.assertAlmostEqual(h100.peak_flops_per_s["bf16"] / 989.4e12, 1.0, delta=0.001)

    def test_parameter_counts(self):
        # Llama-3.1-8B: 8,030,261,248 weights (its safetensors index); dense, so all are active.
        model = decodesim.Model("llama-3.1-8b")
        self.assertEqual(model.parameters_total, 8_030_261_248)
        self.assertEqual(model.parameters_active, model.parameters_total)
        self.assertEqual(model.head_dim, 128)
        self.assertFalse(model.is_moe)

    def test_objects_in_the_command_functions(self):
        hardware, model = decodesim.Hardware("h100-sxm"), decodesim.Model("llama-3.1-8b")
        deployment = decodesim.Deployment(weights="fp8")
        workload = decodesim.Workload(batch=4, context=2048)
        by_objects = decodesim.predict(hardware, model, deployment=deployment, workload=workload)
        by_flags = decodesim.predict("h100-sxm", "llama-3.1-8b", weights="fp8", batch=4, context=2048)
        self.assertEqual(by_objects, by_flags)
        served = decodesim.serve(hardware, model, deployment=deployment, rate=2, prompt=500, output=100, requests=100,
                                 seed=1)
        self.assertEqual(served["conditions"]["weights"], "fp8")
        drawn = decodesim.frontier([hardware, "mi300x"], model, deployment=deployment, concurrency="1,8",
                                   requests_per_client=2)
        code, expected = cli_json("frontier", "--hardware", "h100-sxm,mi300x", "--model", "llama-3.1-8b", "--weights", "fp8",
                                  "--concurrency", "1,8", "--requests-per-client", "2")
        self.assertEqual(drawn, expected)

    def test_a_config_json_is_a_model(self):
        # A config.json of Llama-3.1-8B's shape, written here: the count is the profile's.
        config = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                  "max_position_embeddings": 131072, "hidden_act": "silu", "tie_word_embeddings": False,
                  "torch_dtype": "bfloat16"}
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "config.json")
            with open(path, "w") as file:
                json.dump(config, file)
            self.assertEqual(decodesim.Model(path).parameters_total, 8_030_261_248)


class Errors(unittest.TestCase):
    def test_a_bad_profile_names_its_file_line_and_key(self):
        # hardware_profiles/h100-sxm.yaml with its bandwidth in a unit no one uses: the error
        # points at that line.
        with open(os.path.join(SOURCE, "hardware_profiles", "h100-sxm.yaml")) as file:
            lines = file.read().splitlines()
        index = next(i for i, line in enumerate(lines) if line.lstrip().startswith("bandwidth:"))
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
        lines[index] = indent + "bandwidth: 3.35 furlongs"
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "broken.yaml")
            with open(path, "w") as file:
                file.write("\n".join(lines) + "\n")
            with self.assertRaises(decodesim.InputError) as raised:
                decodesim.Hardware(path)
        error = raised.exception
        self.assertEqual(error.file, path)
        self.assertEqual(error.line, index + 1)
        self.assertTrue(error.key.endswith("bandwidth"), error.key)
        self.assertEqual(error.exit_code, 1)

    def test_names_and_ranges(self):
        with self.assertRaises(decodesim.UsageError) as raised:
            decodesim.Deployment(weights="fp9")
        self.assertIn("did you mean 'fp8'", str(raised.exception))
        with self.assertRaises(decodesim.UsageError):
            decodesim.Deployment(tp=0)
        with self.assertRaises(decodesim.UsageError):
            decodesim.Deployment(cuda_graphs="sometimes")
        with self.assertRaises(decodesim.UsageError):
            decodesim.Deployment(draft="mtp", acceptance=0.7, accept_length=2.5)  # one or the other
        with self.assertRaises(decodesim.UsageError):
            decodesim.Deployment(draft="mtp", spec_length=3, accept_length=4.5)  # 3 drafts yield at most 4
        with self.assertRaises(decodesim.UsageError):
            decodesim.Workload(batch=0)
        with self.assertRaises(decodesim.UsageError):
            decodesim.Workload(prompt=100)  # a request needs its output too
        with self.assertRaises(decodesim.UsageError):
            decodesim.Workload(scenario="chatt")
        with self.assertRaises(decodesim.InputError):
            decodesim.Evaluator("h100-sxn", "llama-3.1-8b")
        with self.assertRaises(decodesim.UsageError):
            decodesim.Evaluator("h100-sxm", "llama-3.1-8b", decodesim.Deployment(runtime="vlm"))

    def test_a_deployment_the_device_cannot_run(self):
        # Llama-3.1-8B has 8 KV heads and 32 query heads: tensor parallelism 3 divides neither.
        with self.assertRaises(decodesim.InputError):
            decodesim.Evaluator("h100-sxm", "llama-3.1-8b", decodesim.Deployment(tp=3))

    def test_warnings(self):
        # 200,000 tokens is beyond Llama-3.1-8B's max_position_embeddings of 131,072.
        evaluator = decodesim.Evaluator("h200-sxm", "llama-3.1-8b")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            evaluator.predict(context=200_000)
        self.assertTrue(any(issubclass(w.category, decodesim.DecodesimWarning) and "131072" in str(w.message)
                            for w in caught), [str(w.message) for w in caught])


class Stubs(unittest.TestCase):
    def test_the_stubs_name_every_public_member(self):
        # _decodesim.pyi is what an IDE reads: every class and method the module has must be in it.
        stub_path = os.path.join(os.path.dirname(decodesim.__file__), "_decodesim.pyi")
        with open(stub_path) as file:
            tree = ast.parse(file.read())
        stubbed = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                stubbed[node.name] = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
        from decodesim import _decodesim
        for name in dir(_decodesim):
            member = getattr(_decodesim, name)
            if isinstance(member, type):
                self.assertIn(name, stubbed, f"class {name} has no stub")
                for attribute in vars(member):
                    if not attribute.startswith("__"):
                        self.assertIn(attribute, stubbed[name], f"{name}.{attribute} has no stub")
        # The classes a user makes show their constructor's arguments.
        for name in ("Hardware", "Model", "Runtime", "Deployment", "Workload", "Evaluator"):
            self.assertIn("__init__", stubbed[name], name)


if __name__ == "__main__":
    unittest.main(verbosity=1)
