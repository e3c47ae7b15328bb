"""The Python module against the command line and against figures derived by hand.

Run as: python3 tests/python/test_module.py BUILD_DIR [--installed]. Without --installed the
package is imported from BUILD_DIR/python; with it, from wherever the interpreter finds it (a pip
install), and the test checks that it is not the build tree's. BUILD_DIR's `decodesim` binary is
the command line the module is compared with.
"""

import csv
import io
import math
import os
import subprocess
import time
import unittest
import warnings

from harness import BINARY, decodesim  # the package under test (tests/python/harness.py)

def cli(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, check=False)


class Predict(unittest.TestCase):
    def test_same_document_as_the_command_line(self):
        import json

        from_python = decodesim.predict(hardware="h100-sxm", model="llama-3.1-8b", batch=32, context=8192)
        result = cli("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "32",
                     "--context", "8192", "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(from_python, json.loads(result.stdout))

    def test_bandwidth_bound_by_hand(self):
        # Llama-3.1-8B streams its weights less the embedding table each step: 8,030,261,248
        # parameters less 128,256 x 4,096 = 525,336,576 of embedding, 2 bytes each, is
        # 15.0098 GB; its KV cache is 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes =
        # 131,072 bytes per token, 134.2 MB at 1,024 tokens. H100 SXM: 3.35 TB/s. The bound is
        # 3.35e12 / 15.144e9 = 221.2 tokens/s (norms and activations move it by well under 0.5%).
        point = decodesim.predict(hardware="h100-sxm", model="llama-3.1-8b", context=1024)
        by_hand = 3.35e12 / ((8_030_261_248 - 525_336_576) * 2 + 131_072 * 1024)
        self.assertAlmostEqual(point["decode"]["roofline_tokens_per_s_per_stream"] / by_hand, 1.0, delta=0.005)
        self.assertEqual(point["decode"]["bound"], "memory")

    def test_flags_as_keywords(self):
        # --weights fp8: one byte per weight, except the embedding table and the LM head (128,256 x
        # 4,096 = 525,336,576 each), which FP8 checkpoints keep in bf16: 8,030,261,248 + 2 x
        # 525,336,576 = 9,080,934,400 bytes.
        point = decodesim.predict(hardware="h100-sxm", model="llama-3.1-8b", weights="fp8")
        self.assertAlmostEqual(point["memory"]["weights_bytes"] / 9_080_934_400, 1.0, delta=0.001)


class Errors(unittest.TestCase):
    def test_misspelt_flag_is_a_usage_error_with_the_suggestion(self):
        with self.assertRaises(decodesim.UsageError) as raised:
            decodesim.predict(hardware="h100-sxm", model="llama-3.1-8b", hardwre="h100-sxm")
        self.assertIn("did you mean '--hardware'", str(raised.exception))
        self.assertEqual(raised.exception.exit_code, 2)

    def test_help_is_refused_with_where_help_is(self):
        # --help prints text, not the JSON these functions parse.
        with self.assertRaises(decodesim.UsageError) as raised:
            decodesim.predict("h100-sxm", "llama-3.1-8b", help=True)
        self.assertIn("help(decodesim)", str(raised.exception))

    def test_a_huge_id_is_refused_as_unknown(self):
        # No suggestion is measured against ids 10 million characters away.
        with self.assertRaises(decodesim.InputError) as raised:
            decodesim.predict("x" * 10_000_000, "llama-3.1-8b")
        self.assertIn("unknown hardware", str(raised.exception))

    def test_unknown_hardware_is_input_error_with_the_cli_message(self):
        with self.assertRaises(decodesim.InputError) as raised:
            decodesim.predict(hardware="h100-sxn", model="llama-3.1-8b")
        result = cli("predict", "--hardware", "h100-sxn", "--model", "llama-3.1-8b")
        self.assertEqual(result.returncode, 1)
        self.assertIn(str(raised.exception), result.stderr)
        self.assertIn("h100-sxm", str(raised.exception))  # the suggestion

    def test_warnings_are_python_warnings(self):
        # Llama-3.1-8B's max_position_embeddings is 131,072.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            decodesim.predict(hardware="h200-sxm", model="llama-3.1-8b", context=200_000)
        self.assertTrue(any(issubclass(w.category, decodesim.DecodesimWarning) and "131072" in str(w.message)
                            for w in caught), [str(w.message) for w in caught])

    def test_check_claim_verdict_is_an_answer_not_an_error(self):
        # 10,000 tokens/s for one stream of a 70B model on one H100 is far above 3.35 TB/s / 141 GB.
        answer = decodesim.check_claim(hardware="h100-sxm", model="llama-3.1-70b", tokens_per_s=10_000, per="stream",
                                       weights="fp8")
        self.assertIn("verdict", answer)


class Planning(unittest.TestCase):
    def test_serve_and_plan_return_their_json_documents(self):
        import json

        served = decodesim.serve(hardware="h100-sxm", model="llama-3.1-8b", rate=2, prompt=500, output=100,
                                 requests=200, seed=1)
        result = cli("serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "2", "--prompt", "500",
                     "--output", "100", "--requests", "200", "--seed", "1", "--json")
        self.assertEqual(served, json.loads(result.stdout))
        planned = decodesim.plan(model="llama-3.1-8b", hardware=["h100-sxm", "l4"], rate=2, prompt=500, output=100)
        result = cli("plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm,l4", "--rate", "2", "--prompt", "500",
                     "--output", "100", "--json")
        self.assertEqual(planned, json.loads(result.stdout))

    def test_no_feasible_plan_is_nothing_computed(self):
        # A 405B model in bf16 (810 GB of weights) cannot be served by one 24 GB L4 at tp 1.
        with self.assertRaises(decodesim.NothingComputed) as raised:
            decodesim.plan(model="llama-3.1-405b", hardware="l4", rate=1, prompt=500, output=100, tp=1)
        self.assertEqual(raised.exception.exit_code, 6)


class Embedding(unittest.TestCase):
    def test_writing_a_file_leaves_pythons_signal_handlers_in_place(self):
        # The CLI removes half-written files on SIGINT with its own handler while a file is
        # pending; inside Python, Ctrl-C must still raise KeyboardInterrupt afterwards.
        import signal
        import tempfile

        before = signal.getsignal(signal.SIGINT)
        with tempfile.TemporaryDirectory() as folder:
            svg = os.path.join(folder, "curve.svg")
            decodesim.curve(hardware="h100-sxm", model="llama-3.1-8b", svg=svg)
            self.assertTrue(os.path.getsize(svg) > 0)
        self.assertIs(signal.getsignal(signal.SIGINT), before)
        # Python's own table would not show a handler replaced beneath it: deliver the signal.
        with self.assertRaises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)


class Sweep(unittest.TestCase):
    def test_arrays_match_the_csv(self):
        import numpy

        table = decodesim.sweep(hardware=["h100-sxm", "mi300x"], model="llama-3.1-8b", batch="1:64:x4", context=[1024, 8192])
        result = cli("sweep", "--hardware", "h100-sxm,mi300x", "--model", "llama-3.1-8b", "--batch", "1:64:x4",
                     "--context", "1024,8192")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual(len(rows), 2 * 4 * 2)  # 2 devices x batches 1, 4, 16, 64 x 2 contexts
        self.assertEqual(list(table.keys()), list(rows[0].keys()))
        for name, values in table.items():
            self.assertEqual(len(values), len(rows), name)
            for value, row in zip(values, rows):
                text = row[name]
                if values.dtype.kind == "f":
                    if text == "":
                        self.assertTrue(math.isnan(value), name)
                    else:  # the CSV carries nine significant digits
                        self.assertAlmostEqual(value / float(text) if float(text) else value, 1.0 if float(text) else 0.0,
                                               delta=1e-8, msg=name)
                elif values.dtype == numpy.bool_:
                    self.assertEqual(bool(value), text == "true", name)
                else:
                    self.assertEqual(str(value), text, name)

    def test_counts_are_integers(self):
        import numpy

        table = decodesim.sweep(hardware="h100-sxm", model="llama-3.1-8b", batch=[1, 2], tp=[1, 2], context=2048)
        for name in ("tensor_parallel", "batch", "context_tokens", "memory.max_batch"):
            self.assertEqual(table[name].dtype, numpy.int64, name)
        self.assertEqual(f"tp{table['tensor_parallel'][-1]}", "tp2")
        # Step mode has no prompt: that column keeps its NaN, so it stays float.
        self.assertEqual(table["prompt_tokens"].dtype, numpy.float64)
        self.assertTrue(numpy.isnan(table["prompt_tokens"]).all())

    def test_a_point_of_the_sweep_is_the_predicted_point(self):
        table = decodesim.sweep(hardware="h100-sxm", model="llama-3.1-8b", batch=range(1, 9), context=4096)
        point = decodesim.predict(hardware="h100-sxm", model="llama-3.1-8b", batch=8, context=4096)
        self.assertEqual(list(table["batch"]), [1, 2, 3, 4, 5, 6, 7, 8])
        self.assertEqual(table["decode.tokens_per_s_total"][7], point["decode"]["tokens_per_s_total"])

    def test_bad_range_is_the_command_line_error(self):
        with self.assertRaises(decodesim.UsageError) as raised:
            decodesim.sweep(hardware="h100-sxm", model="llama-3.1-8b", batch="1:64:x1")
        self.assertIn("--batch", str(raised.exception))

    def test_data_frame_when_pandas_is_present(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = decodesim.sweep(hardware="h100-sxm", model="llama-3.1-8b", batch=[1, 2], as_frame=True)
        self.assertEqual(list(frame["batch"]), [1, 2])
        # Counts are integers, so a label built from one reads "tp1", not "tp1.0"; a count with
        # gaps (prompt tokens in step mode) is pandas' nullable integer.
        self.assertEqual(str(frame["tensor_parallel"].dtype), "int64")
        self.assertEqual(f"tp{frame['tensor_parallel'][0]}", "tp1")
        self.assertEqual(str(frame["prompt_tokens"].dtype), "Int64")


class Catalog(unittest.TestCase):
    def test_ids(self):
        self.assertIn("h100-sxm", decodesim.hardware_ids())
        self.assertIn("llama-3.1-8b", decodesim.model_ids())

    def test_missing_root(self):
        with self.assertRaises(decodesim.InputError):
            decodesim.hardware_ids(profiles_dir="/nonexistent/profiles")


if __name__ == "__main__":
    unittest.main(verbosity=1)
