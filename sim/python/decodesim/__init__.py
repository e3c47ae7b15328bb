"""decodesim from Python: the engine's own objects, and the command line's functions.

The objects (docs/python.md, "The objects") hold the engine's types: ``Hardware``, ``Model`` and
``Runtime`` profiles, a ``Deployment`` and a ``Workload``, and an ``Evaluator`` that resolves them
once and then predicts at engine speed::

    evaluator = decodesim.Evaluator("h100-sxm", "llama-3.1-8b", decodesim.Deployment(weights="fp8"))
    point = evaluator.predict(batch=32, context=8192)
    point.tokens_per_s_per_stream, point.bound, point.memory.fits
    grid = evaluator.evaluate(batch=[1, 8, 64], context=[[1024], [8192]])   # NumPy arrays

The functions take the command's flags as keyword arguments (``context=8192`` is ``--context 8192``,
``tokens_per_s=500`` is ``--tokens-per-s 500``, ``band=True`` is ``--band``; a list or range is a
comma-separated list), and the objects in place of ids (``hardware=``, ``model=``, ``deployment=``,
``workload=``), and return what ``--json`` prints, as a dict. ``sweep`` returns NumPy arrays, or a
pandas DataFrame with ``as_frame=True``.

A command-line error raises ``UsageError``, bad input (a profile, a deployment that cannot run)
``InputError`` (with ``file``, ``line`` and ``key`` where the problem has them), a run that
computes nothing ``NothingComputed``. Warnings are Python warnings (``DecodesimWarning``).
"""

import json as _json
import os as _os
import warnings as _warnings

from . import _decodesim
from ._decodesim import Deployment, MemoryFigures, Prediction, PrefillFigures, RequestFigures, Workload

__all__ = [
    "Hardware", "Model", "Runtime", "Deployment", "Workload", "Evaluator", "Prediction", "predict", "frontier", "why", "curve", "check_claim", "compare", "versus", "serve", "plan", "accuracy", "sweep",
    "hardware_ids", "model_ids", "runtime_ids", "run", "DecodesimError", "UsageError", "InputError", "NothingComputed",
    "InternalError", "DecodesimWarning",
]


class DecodesimError(Exception):
    """A run that failed; ``exit_code`` is the command line's (docs/cli.md). ``file``, ``line`` and
    ``key`` say where in an input the problem is, where it has a place (else None)."""

    exit_code = None

    def __init__(self, message, exit_code, file=None, line=None, key=None):
        super().__init__(message)
        self.exit_code = exit_code
        self.file = file
        self.line = line
        self.key = key


class InputError(DecodesimError):
    """Bad input: a profile, a file, or a deployment the device cannot run (exit code 1)."""


class UsageError(DecodesimError, ValueError):
    """A flag or value the command does not accept (exit code 2)."""


class InternalError(DecodesimError):
    """A bug in decodesim (exit code 3)."""


class NothingComputed(DecodesimError):
    """Every point was skipped or rejected (exit code 6)."""


class DecodesimWarning(UserWarning):
    """A warning the command line prints on stderr."""


_ERRORS = {1: InputError, 2: UsageError, 3: InternalError, 6: NothingComputed}
_PREFIX = "decodesim: "


# The profiles a `pip install` put beside the package; None in a build tree, where the engine's
# own default (DECODESIM_PROFILE_DIR, else the source tree it was built from) applies.
_PACKAGED_PROFILES = _os.path.join(_os.path.dirname(__file__), "profiles")
if not _os.path.isdir(_os.path.join(_PACKAGED_PROFILES, "hardware_profiles")):
    _PACKAGED_PROFILES = None


def _profiles_dir(profiles_dir):
    return profiles_dir if profiles_dir is not None else _PACKAGED_PROFILES


def _numpy():
    """numpy, or an ImportError that says how to get it."""
    try:
        import numpy
    except ImportError as error:
        raise ImportError("decodesim's arrays need numpy: `pip install numpy`, or make the venv with "
                          "`python3 -m venv --system-site-packages` to use Debian's python3-numpy "
                          "(docs/python.md)") from error
    return numpy


class Hardware(_decodesim.Hardware):
    __doc__ = _decodesim.Hardware.__doc__

    def __init__(self, id_or_path, profiles_dir=None):
        """A hardware id ("h100-sxm") or a profile file; profiles_dir: the folder holding hardware_profiles/."""
        super().__init__(str(id_or_path), _profiles_dir(profiles_dir))


class Model(_decodesim.Model):
    __doc__ = _decodesim.Model.__doc__

    def __init__(self, id_or_path, profiles_dir=None):
        """A model id, a profile YAML, a config.json, a .gguf file, a checkpoint folder, or ORG/NAME from the
        local Hugging Face cache."""
        super().__init__(str(id_or_path), _profiles_dir(profiles_dir))


class Runtime(_decodesim.Runtime):
    __doc__ = _decodesim.Runtime.__doc__

    def __init__(self, id_or_path, profiles_dir=None):
        """A runtime build ("vllm", "sglang", "llama.cpp@2024-06", ...) or a runtime profile file."""
        super().__init__(str(id_or_path), _profiles_dir(profiles_dir))


_INPUT_COLUMNS = ("batch", "context", "prompt", "output")


class Evaluator(_decodesim.Evaluator):
    """A model on a device under a deployment, resolved once as the command line resolves it.

    ``predict()`` gives one point's figures as a ``Prediction`` (equal to ``decodesim predict --json``
    to the last bit); ``evaluate()`` gives arrays over NumPy arrays of batches and contexts (or
    prompts and outputs).
    """

    def __init__(self, hardware, model, deployment=None, *, profiles_dir=None):
        """hardware and model: objects, ids or paths; deployment: a ``Deployment`` (default: bf16 on the
        device's default runtime, one device)."""
        super().__init__(hardware, model, deployment, profiles_dir=_profiles_dir(profiles_dir))

    def evaluate(self, batch=1, context=None, prompt=None, output=None, as_frame=False):
        """predict's main figures over arrays: batch, context (or prompt and output) broadcast against each
        other as NumPy does. Returns a dict of arrays of the broadcast shape: the inputs as int64,
        ``tokens_per_s_per_stream``, ``tokens_per_s_total``, ``step_time_s``, ``ttft_s``,
        ``end_to_end_s`` (requests), ``kv_cache_bytes``, ``headroom_bytes``, ``max_batch`` (int64),
        ``fits`` (bool) and ``bound`` (str); with ``as_frame=True``, a pandas DataFrame of one row per
        point."""
        numpy = _numpy()
        given = {"batch": batch, "context": context, "prompt": prompt, "output": output}
        names = [name for name in _INPUT_COLUMNS if given[name] is not None]
        arrays = numpy.broadcast_arrays(*[numpy.asarray(given[name]) for name in names])
        shape = arrays[0].shape
        flat = {name: numpy.ascontiguousarray(array, dtype=numpy.float64).reshape(-1)
                for name, array in zip(names, arrays)}
        columns = self._evaluate_arrays(flat["batch"], flat.get("context"), flat.get("prompt"), flat.get("output"))
        result = {name: flat[name].astype(numpy.int64).reshape(shape) for name in names}
        bound_names = numpy.array(_decodesim._bound_names(), dtype=object)
        for key, values in columns.items():
            if key == "bound_code":
                result["bound"] = bound_names[values].reshape(shape)
            else:
                result[key] = values.reshape(shape)
        if as_frame:
            return _frame({key: values.reshape(-1) for key, values in result.items()}, "evaluate")
        return result


def _frame(columns, caller):
    try:
        import pandas
    except ImportError as error:
        raise ImportError(f"{caller}(as_frame=True) needs pandas (Debian: python3-pandas)") from error
    return pandas.DataFrame(columns)


def _object_flags(options):
    """The objects among the keyword arguments, as flags: (flags, profiles folder or None)."""
    args = []
    folders = set()
    for key in ("hardware", "model"):
        value = options.get(key)
        if isinstance(value, (_decodesim.Hardware, _decodesim.Model)):
            options[key] = value.given
            folders.add(value.profiles_dir)
        elif isinstance(value, (list, tuple)) and any(isinstance(item, _decodesim.Hardware) for item in value):
            options[key] = [item.given if isinstance(item, _decodesim.Hardware) else item for item in value]
            folders.update(item.profiles_dir for item in value if isinstance(item, _decodesim.Hardware))
    runtime = options.get("runtime")
    if isinstance(runtime, _decodesim.Runtime):
        options["runtime"] = runtime.given
    deployment = options.pop("deployment", None)
    if deployment is not None:
        if not isinstance(deployment, _decodesim.Deployment):
            raise TypeError("deployment: a decodesim.Deployment")
        args += deployment.flags()
    workload = options.pop("workload", None)
    if workload is not None:
        if not isinstance(workload, _decodesim.Workload):
            raise TypeError("workload: a decodesim.Workload")
        args += workload.flags()
    if len(folders) > 1:
        raise UsageError("the hardware and the model come from different profile folders: give both the same "
                         "profiles_dir", 2)
    folder = folders.pop() if folders else _PACKAGED_PROFILES
    return args, folder


def _flags(options):
    """Keyword arguments to flags: None and False are left out, True is a bare flag."""
    args = []
    for key, value in options.items():
        if key in ("help", "version"):
            # Their output is text, not the JSON these functions return.
            raise UsageError(f"{key} is not an option of the Python functions: use help(decodesim) or "
                             f"decodesim.run('COMMAND', '--{key}')", 2)
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple, range)):
            args += [flag, ",".join(str(item) for item in value)]
        else:
            args += [flag, str(value)]
    return args


def _raise_and_warn(exit_code, err, allowed=(0,)):
    """Turns stderr into Python warnings and, for a failed run, an exception with its message."""
    problems = []
    for line in err.splitlines():
        if line.startswith(_PREFIX + "warning: "):
            _warnings.warn(line[len(_PREFIX + "warning: "):], DecodesimWarning, stacklevel=3)
        elif line.startswith("Run 'decodesim"):
            continue  # the pointer to --help suits a shell, not Python
        elif line:
            problems.append(line[len(_PREFIX):] if line.startswith(_PREFIX) else line)
    if exit_code in allowed:
        return
    message = "\n".join(problems)
    if message.startswith("error: "):
        message = message[len("error: "):]
    raise _ERRORS.get(exit_code, DecodesimError)(message, exit_code)


def run(*args):
    """Runs ``decodesim ARGS...`` in-process: (exit code, stdout, stderr), never raising."""
    args = [str(arg) for arg in args]
    if _PACKAGED_PROFILES and "--profiles-dir" not in args:
        args = ["--profiles-dir", _PACKAGED_PROFILES] + args
    return _decodesim.run(args)


def _command_root(options):
    """Takes the objects and ``profiles_dir`` out of ``options``: (their flags, the --profiles-dir
    that must come before the command)."""
    object_args, folder = _object_flags(options)
    folder = options.pop("profiles_dir", None) or folder
    return object_args, (["--profiles-dir", folder] if folder else [])


def _json_command(command, options, allowed=(0,)):
    options = dict(options)
    object_args, root = _command_root(options)
    exit_code, out, err = _decodesim.run(root + command + _flags(options) + object_args + ["--json"])
    _raise_and_warn(exit_code, err, allowed)
    return _json.loads(out)


def predict(hardware, model, **options):
    """One operating point: the dict ``decodesim predict --json`` prints."""
    return _json_command(["predict"], dict(hardware=hardware, model=model, **options))


def why(hardware, model, **options):
    """What bounds the point and what each resource would change: ``decodesim why --json``."""
    return _json_command(["why"], dict(hardware=hardware, model=model, **options))


def curve(hardware, model, **options):
    """Throughput against concurrency: ``decodesim curve --json``."""
    return _json_command(["curve"], dict(hardware=hardware, model=model, **options))


def check_claim(hardware, model, tokens_per_s, **options):
    """Is a tokens/s claim possible? ``decodesim check-claim --json``; an impossible claim is an
    answer (``verdict``), not an exception."""
    options = dict(hardware=hardware, model=model, tokens_per_s=tokens_per_s, **options)
    return _json_command(["check-claim"], options, allowed=(0, 4, 5))


def compare(hardware, model, **options):
    """Devices side by side: ``decodesim compare --json``; ``hardware`` may be a list."""
    return _json_command(["compare"], dict(hardware=hardware, model=model, **options))


def versus(hardware, model, **options):
    """The vendor's conditions to yours, one at a time: ``decodesim versus --json``."""
    return _json_command(["versus"], dict(hardware=hardware, model=model, **options))


def serve(hardware, model, **options):
    """Serving a request stream: ``decodesim serve --json``."""
    return _json_command(["serve"], dict(hardware=hardware, model=model, **options))


def frontier(hardware, model, **options):
    """Throughput a device against tokens/s a user over concurrency: ``decodesim frontier --json``;
    ``hardware`` may be a list (each item optionally "id:devices")."""
    return _json_command(["frontier"], dict(hardware=hardware, model=model, **options))


def plan(model, hardware=None, **options):
    """The cheapest deployment per device that meets the targets: ``decodesim plan --json``."""
    return _json_command(["plan"], dict(model=model, hardware=hardware, **options))


def accuracy(**options):
    """Predictions against the public measurements in validation/: ``decodesim accuracy --json``."""
    return _json_command(["accuracy"], options)


def _catalog(profiles_dir):
    error, ids = _decodesim.catalog_ids(_profiles_dir(profiles_dir) or "")
    if error is not None:
        raise InputError(error, 1)
    return ids


def hardware_ids(profiles_dir=None):
    """The hardware profile ids (``decodesim profiles list hardware``)."""
    return _catalog(profiles_dir)["hardware"]


def model_ids(profiles_dir=None):
    """The model profile ids (``decodesim profiles list models``)."""
    return _catalog(profiles_dir)["models"]


def runtime_ids(profiles_dir=None):
    """The runtime build ids (``decodesim profiles list runtimes``): "vllm@0.8", "llama.cpp@2024-06", ..."""
    return _catalog(profiles_dir)["runtimes"]


# Sweep columns that count things: int64 where every row has a value; with as_frame, a column with
# gaps (prompt_tokens in step mode) becomes pandas' nullable Int64.
_SWEEP_INTEGER_COLUMNS = ("tensor_parallel", "batch", "context_tokens", "prompt_tokens", "output_tokens",
                          "memory.max_batch")


def sweep(hardware, model, as_frame=False, **options):
    """The cross product of lists and ranges, as ``decodesim sweep`` evaluates it.

    Each value may be one value, a list, a range, or the command line's range text ("1:256:x2");
    hardware and model may be objects. Returns a dict from the sweep's column names (docs/cli.md)
    to NumPy arrays of one row per point: int64 counts (tensor_parallel, batch, token counts,
    memory.max_batch; a token count that does not apply, as prompt_tokens in step mode, leaves its
    column float64 with NaN), float64 figures, a bool ``memory.fits``, and string arrays for the ids
    and formats. With ``as_frame=True``, a pandas DataFrame of the same columns (counts with gaps
    as pandas' nullable Int64).
    """
    numpy = _numpy()

    options = dict(hardware=hardware, model=model, **options)
    for name in ("format", "output_file", "quiet"):
        if name in options:
            raise UsageError(f"sweep: '{name}' has no meaning here: the points come back as arrays", 2)
    object_args, root = _command_root(options)
    exit_code, err, table = _decodesim.sweep(root + ["sweep"] + _flags(options) + object_args)
    _raise_and_warn(exit_code, err)

    rows = numpy.array([deployment["rows"] for deployment in table["deployments"]], dtype=numpy.int64)

    def per_deployment(key):
        values = numpy.array([deployment[key] for deployment in table["deployments"]], dtype=object)
        return numpy.repeat(values, rows)

    numbers = table["numbers"]
    columns = {}
    # In the command line's column order: the deployment, the point, its figures.
    for key in ("hardware", "model", "weights", "kv", "activation", "runtime"):
        columns[key] = per_deployment(key)
    columns["tensor_parallel"] = numbers.pop("tensor_parallel")
    columns["clocks"] = per_deployment("clocks")
    bound = numpy.array(table["bound_names"], dtype=object)[table["bound"]]
    for key, values in numbers.items():
        if key == "decode.roofline_tokens_per_s_per_stream":
            columns["decode.bound"] = bound
        if key == "memory.max_batch":
            columns["memory.fits"] = table["fits"].astype(bool)
        columns[key] = values
    gaps = {}
    for key in _SWEEP_INTEGER_COLUMNS:
        if numpy.isnan(columns[key]).any():
            gaps[key] = columns[key]
        else:
            columns[key] = columns[key].astype(numpy.int64)
    if as_frame:
        frame = _frame(columns, "sweep")
        for key in gaps:
            frame[key] = frame[key].astype("Int64")
        return frame
    return columns
