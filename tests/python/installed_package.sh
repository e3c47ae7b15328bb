#!/bin/sh
# `pip install .` as docs/python.md gives it, into a fresh virtual environment, then the Python
# tests against the installed package. Offline: --no-build-isolation and --no-index, the venv seeing
# Debian's numpy, setuptools and wheel through --system-site-packages. DECODESIM_BUILD_DIR points
# setup.py at this build, whose module the suite has built already, so nothing is compiled twice.
# Usage: installed_package.sh SOURCE_DIR BUILD_DIR PYTHON
set -eu
source_dir=$1
build_dir=$2
python=$3
venv=$build_dir/python-venv
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
cd "$source_dir"
DECODESIM_BUILD_DIR=$build_dir "$venv/bin/python" -m pip install --quiet --no-build-isolation --no-index \
    --no-cache-dir "$source_dir"
# Away from the source and build trees, so that `import decodesim` can only find the installed one.
cd "$venv"
"$venv/bin/python" -c "import decodesim, sys; print('decodesim from', decodesim.__file__)"
"$venv/bin/python" "$source_dir/tests/python/test_module.py" "$build_dir" --installed
"$venv/bin/python" "$source_dir/tests/python/test_objects.py" "$build_dir" --installed
