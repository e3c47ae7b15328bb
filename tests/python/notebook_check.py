"""Runs a notebook's code cells in order, as a kernel would, in a fresh folder.

Run as: python3 tests/python/notebook_check.py NOTEBOOK BUILD_DIR. No Jupyter is needed: the cells
are read from the .ipynb JSON and executed in one namespace with matplotlib's Agg backend. Checks
that every cell runs and that each file the notebook saves is there and not empty.
"""

import contextlib
import io
import json
import os
import sys
import tempfile

notebook_path, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(build, "python"))
os.environ["MPLBACKEND"] = "Agg"
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: matplotlib is not installed (Debian: python3-matplotlib)")
    sys.exit(0)

with open(notebook_path) as file:
    cells = [cell for cell in json.load(file)["cells"] if cell["cell_type"] == "code"]
namespace = {"__name__": "__main__"}
printed = io.StringIO()
with tempfile.TemporaryDirectory() as folder:
    os.chdir(folder)
    for number, cell in enumerate(cells, 1):
        source = "".join(cell["source"])
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(source, f"{notebook_path} cell {number}", "exec"), namespace)
        except Exception:
            print(f"{notebook_path}: code cell {number} failed", file=sys.stderr)
            raise
    saved = [name for name in os.listdir(folder)]
    if not saved or any(os.path.getsize(name) == 0 for name in saved):
        sys.exit(f"{notebook_path}: expected the figure it saves, found {saved}")
print(printed.getvalue(), end="")
print(f"{len(cells)} code cells ran; saved: {', '.join(sorted(saved))}")
