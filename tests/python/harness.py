"""What the Python tests share: which decodesim package they import, and the build it is compared with.

A test runs as: python3 tests/python/TEST.py BUILD_DIR [--installed]. Without --installed the
package is imported from BUILD_DIR/python; with it, from wherever the interpreter finds it (a pip
install), and the run stops if that is the build tree's. BUILD_DIR's `decodesim` binary is the
command line the module is compared with.
"""

import os
import sys

BUILD = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else "build")
INSTALLED = "--installed" in sys.argv
if INSTALLED:
    sys.argv.remove("--installed")
else:
    sys.path.insert(0, os.path.join(BUILD, "python"))
import decodesim  # noqa: E402

if INSTALLED and os.path.abspath(decodesim.__file__).startswith(os.path.join(BUILD, "python") + os.sep):
    sys.exit(f"--installed, but decodesim was imported from the build tree: {decodesim.__file__}")

BINARY = os.path.join(BUILD, "decodesim")
