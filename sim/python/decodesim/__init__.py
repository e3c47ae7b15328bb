"""decodesim from Python: the same engine, flags and messages as the command line.

Each function takes the command's flags as keyword arguments (``context=8192`` is ``--context 8192``,
``tokens_per_s=500`` is ``--tokens-per-s 500``, ``band=True`` is ``--band``; a list or range is a
comma-separated list) and returns what ``--json`` prints, as a dict. ``sweep`` returns NumPy arrays,
or a pandas DataFrame with ``as_frame=True``. A command-line error raises ``UsageError``, bad input
(a profile, a deployment that cannot run) ``InputError``, a run that computes nothing
``NothingComputed``; each carries the command line's message. Warnings are Python warnings
(``DecodesimWarning``). docs/python.md has examples.
"""

import json as _json
import warnings as _warnings

from . import _decodesim

__all__ = [
    "predict", "why", "curve", "check_claim", "compare", "versus", "serve", "plan", "accuracy", "sweep",
    "hardware_ids", "model_ids", "runtime_ids", "run", "DecodesimError", "UsageError", "InputError", "NothingComputed",
    "InternalError", "DecodesimWarning",
]


class DecodesimError(Exception):
    """A run that failed; ``exit_code`` is the command line's (docs/cli.md)."""

    exit_code = None

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


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
    return _decodesim.run([str(arg) for arg in args])


def _json_command(command, options, allowed=(0,)):
    exit_code, out, err = _decodesim.run(command + _flags(options) + ["--json"])
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


def plan(model, hardware=None, **options):
    """The cheapest deployment per device that meets the targets: ``decodesim plan --json``."""
    return _json_command(["plan"], dict(model=model, hardware=hardware, **options))


def accuracy(**options):
    """Predictions against the public measurements in validation/: ``decodesim accuracy --json``."""
    return _json_command(["accuracy"], options)


def _catalog(profiles_dir):
    error, ids = _decodesim.catalog_ids(profiles_dir or "")
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


def sweep(hardware, model, as_frame=False, **options):
    """The cross product of lists and ranges, as ``decodesim sweep`` evaluates it.

    Each value may be one value, a list, a range, or the command line's range text ("1:256:x2").
    Returns a dict from the sweep's column names (docs/cli.md) to NumPy arrays of one row per
    point: float64 numbers (NaN where a column does not apply, as prompt_tokens in step mode), a
    bool ``memory.fits``, and string arrays for the ids and formats. With ``as_frame=True``, a
    pandas DataFrame of the same columns.
    """
    import numpy

    options = dict(hardware=hardware, model=model, **options)
    for name in ("format", "output_file", "quiet"):
        if name in options:
            raise UsageError(f"sweep: '{name}' has no meaning here: the points come back as arrays", 2)
    exit_code, err, table = _decodesim.sweep(_flags(options))
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
    if as_frame:
        try:
            import pandas
        except ImportError as error:
            raise ImportError("sweep(as_frame=True) needs pandas (Debian: python3-pandas)") from error
        return pandas.DataFrame(columns)
    return columns
