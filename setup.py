"""Builds decodesim's Python module for `pip install .` (pyproject.toml holds the metadata).

The extension is the CMake target decodesim_python, built by the project's own CMake: in the
folder $DECODESIM_BUILD_DIR when set (a build that already holds it, as the test suite's does, is
reused as it stands), else build/pip. The profiles and the measurement tables the engine reads
(hardware_profiles/, model_profiles/, runtime_profiles/, validation/) are copied into the package,
so the installed module does not need this checkout.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
PROFILE_FOLDERS = ("hardware_profiles", "model_profiles", "runtime_profiles", "validation")


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class BuildWithCMake(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("DECODESIM_BUILD_DIR") or os.path.join(ROOT, "build", "pip")
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DDECODESIM_BUILD_TESTS=OFF",
                "-DDECODESIM_BUILD_BENCHMARKS=OFF",
            ])
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "decodesim_python", "-j", jobs])
        built = glob.glob(os.path.join(build_dir, "python", "decodesim", "_decodesim*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _decodesim module in {build_dir}/python/decodesim, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)
        # The profiles beside the package: decodesim/__init__.py reads them from there.
        profiles = os.path.join(os.path.dirname(target), "profiles")
        shutil.rmtree(profiles, ignore_errors=True)
        for folder in PROFILE_FOLDERS:
            shutil.copytree(os.path.join(ROOT, folder), os.path.join(profiles, folder))


setup(ext_modules=[CMakeExtension("decodesim._decodesim")], cmdclass={"build_ext": BuildWithCMake})
