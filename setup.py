"""The native part of the `tenet_cost` package for `pip install` (pyproject.toml; docs/python.md).

build_ext builds the module `_core` with CMake (the project's own build, target tc_python) into build-pip/ and
copies it into the wheel; build_py adds the shipped data (configs/arch, workloads) as tenet_cost/data, which the
package points TENET_COST_DATA at when that is unset. With TENET_COST_PREBUILT=<a build's python folder, e.g.
build/python>, the `_core` already built there is taken instead of running CMake (the install test uses it);
TENET_COST_CMAKE_ARGS adds arguments to the CMake configure (e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        prebuilt = os.environ.get("TENET_COST_PREBUILT")
        if prebuilt:
            folder = os.path.join(prebuilt, "tenet_cost")
        else:
            build = os.path.join(ROOT, "build-pip")
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DTC_BUILD_PYTHON=ON", "-DTC_BUILD_BENCH=OFF", f"-DPython3_EXECUTABLE={sys.executable}",
                            *os.environ.get("TENET_COST_CMAKE_ARGS", "").split()],
                           check=True)
            subprocess.run(["cmake", "--build", build, "--target", "tc_python", "-j", str(os.cpu_count() or 2)],
                           check=True)
            folder = os.path.join(build, "python", "tenet_cost")
        found = sorted(glob.glob(os.path.join(folder, "_core*.so")))
        if not found:
            raise RuntimeError(f"no _core*.so in {folder}: the CMake build of tc_python did not make one")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(found[0], target)


class WithData(build_py):
    def run(self):
        super().run()
        for part in (os.path.join("configs", "arch"), "workloads"):
            dest = os.path.join(self.build_lib, "tenet_cost", "data", part)
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(os.path.join(ROOT, part), dest)


# setuptools' own work files in build-pip/ (gitignored), not in CMake's build/
os.makedirs(os.path.join(ROOT, "build-pip"), exist_ok=True)
setup(ext_modules=[Extension("tenet_cost._core", sources=[])], cmdclass={"build_ext": CMakeBuild, "build_py": WithData},
      options={"build": {"build_base": os.path.join("build-pip", "setuptools")}, "egg_info": {"egg_base": "build-pip"}})
