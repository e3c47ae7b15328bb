"""The cost of one prediction from Python, against a pure-Python peer measured in the same run.

    python3 -m decodesim.bench [--peer PATH_TO_LLM_VIEWER] [--repeats N]

Times ``Evaluator.predict()`` on a built evaluator (Llama-3.1-8B on one H100 SXM, bf16) over 64
configurations (batches 1 to 128 by doubling, contexts 512 to 64k by doubling), and the same
configurations through ``Evaluator.evaluate`` (arrays) and the CLI-shaped ``decodesim.predict``.
With ``--peer``, also LLM-Viewer's ``ModelAnalyzer.analyze`` (hahnyuan/LLM-Viewer, a checkout
given by path: it is not shipped) on the same model and configurations; LLM-Viewer imports
``transformers`` only to read a config, so the benchmark hands it Llama-3.1-8B's shape from the
model profile instead. Each figure is the median over repeats of the mean time per call.
"""

import argparse
import importlib
import os
import statistics
import sys
import time
import types
import warnings

import decodesim

BATCHES = [2**i for i in range(8)]          # 1 to 128
CONTEXTS = [512 * 2**i for i in range(8)]   # 512 to 65,536
CONFIGURATIONS = [(batch, context) for batch in BATCHES for context in CONTEXTS]


def per_call(function, repeats):
    """The median over `repeats` of the mean time per configuration of one pass over them all, in s."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) / len(CONFIGURATIONS))
    return statistics.median(times)


def peer_analyzer(path, model):
    """LLM-Viewer's ModelAnalyzer for `model`'s shape on its nvidia_H100, imported from `path`."""
    shape = types.SimpleNamespace(
        hidden_size=model.hidden_size, num_attention_heads=model.num_attention_heads,
        num_key_value_heads=model.num_key_value_heads, num_hidden_layers=model.num_hidden_layers,
        intermediate_size=model.intermediate_size, vocab_size=model.vocab_size, max_position_embeddings=model.max_position_embeddings)
    transformers = types.ModuleType("transformers")
    transformers.AutoConfig = types.SimpleNamespace(from_pretrained=lambda *args, **kwargs: shape)
    transformers.AutoTokenizer = transformers.AutoModelForCausalLM = None
    sys.modules.setdefault("transformers", transformers)
    sys.path.insert(0, os.path.abspath(path))
    here = os.getcwd()
    os.chdir(path)  # it finds configs/ relative to its own folder and imports them by module name
    try:
        analyzer_module = importlib.import_module("model_analyzer")
        analyzer = analyzer_module.ModelAnalyzer("meta-llama/Llama-3.1-8B", "nvidia_H100", config_file="configs/Llama.py")
    finally:
        os.chdir(here)
    return analyzer


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m decodesim.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", help="an LLM-Viewer checkout (hahnyuan/LLM-Viewer) to time beside decodesim")
    parser.add_argument("--repeats", type=int, default=21, help="passes over the 64 configurations (default 21)")
    args = parser.parse_args(argv)

    import numpy

    # Points beyond memory are timed as any other; their warnings would only flood the output.
    warnings.simplefilter("ignore", decodesim.DecodesimWarning)
    evaluator = decodesim.Evaluator("h100-sxm", "llama-3.1-8b")
    batches = numpy.array([batch for batch, _ in CONFIGURATIONS])
    contexts = numpy.array([context for _, context in CONFIGURATIONS])

    def objects():
        for batch, context in CONFIGURATIONS:
            evaluator.predict(batch=batch, context=context).tokens_per_s_per_stream

    def arrays():
        evaluator.evaluate(batch=batches, context=contexts)

    def functions():
        for batch, context in CONFIGURATIONS:
            decodesim.predict("h100-sxm", "llama-3.1-8b", batch=batch, context=context)

    rows = [("Evaluator.predict()", per_call(objects, args.repeats)),
            ("Evaluator.evaluate() over arrays, a point", per_call(arrays, args.repeats)),
            ("decodesim.predict() (the command line in-process)", per_call(functions, max(3, args.repeats // 7)))]
    if args.peer:
        analyzer = peer_analyzer(args.peer, decodesim.Model("llama-3.1-8b"))

        def peer():
            for batch, context in CONFIGURATIONS:
                analyzer.analyze(seqlen=context, batchsize=batch, w_bit=16, a_bit=16, kv_bit=16)

        rows.append(("LLM-Viewer ModelAnalyzer.analyze()", per_call(peer, args.repeats)))

    print(f"per configuration, median of {args.repeats} passes over {len(CONFIGURATIONS)} configurations "
          "(Llama-3.1-8B, H100 SXM, bf16):")
    for name, seconds in rows:
        print(f"  {name:<52} {seconds * 1e6:10.2f} us")
    if args.peer:
        ratio = rows[-1][1] / rows[0][1]
        print(f"LLM-Viewer's per-configuration time / Evaluator.predict(): {ratio:.1f}x")
    else:
        print("(no --peer: LLM-Viewer not timed; give a checkout of hahnyuan/LLM-Viewer to compare)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
