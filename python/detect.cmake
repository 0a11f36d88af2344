# Whether to build the Python module (python/CMakeLists.txt): TC_PYTHON is ON when TC_BUILD_PYTHON is ON (then
# pybind11 and Python 3's headers are required) or AUTO and both are found. Never under the sanitizers: an ASan
# module cannot load into a python3 that is not itself built with ASan.
set(TC_PYTHON OFF)
# TC_PYTHON_WANTED: the build means to have the module (not left out on purpose by TC_SANITIZE or
# TC_BUILD_PYTHON=OFF); tests/CMakeLists.txt registers the python test, failing under CI, only then.
set(TC_PYTHON_WANTED OFF)
if(NOT TC_SANITIZE AND NOT TC_BUILD_PYTHON STREQUAL "OFF")
  set(TC_PYTHON_WANTED ON)
endif()
if(TC_SANITIZE)
  if(TC_BUILD_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "TC_BUILD_PYTHON=ON and TC_SANITIZE=ON: a sanitized module cannot load into python3")
  endif()
elseif(TC_PYTHON_WANTED)
  # Python3_EXECUTABLE: the python3 first on PATH unless given (-DPython3_EXECUTABLE=...); the module imports in
  # any interpreter of the same major.minor version (the same extension suffix).
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(TC_PYTHON ON)
    message(STATUS "tenet-cost: Python module for ${Python3_EXECUTABLE} (${Python3_VERSION}, pybind11 ${pybind11_VERSION})")
  elseif(TC_BUILD_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "TC_BUILD_PYTHON=ON needs pybind11 and Python 3's headers (Debian: pybind11-dev python3-dev)")
  else()
    message(STATUS "tenet-cost: no pybind11 or Python 3 headers: the Python module is not built (TC_BUILD_PYTHON=AUTO)")
  endif()
endif()

# The static libraries the module links are position-independent then (-fno-semantic-interposition keeps calls
# inside them as direct and inlinable as without -fPIC).
function(tc_python_pic target)
  if(TC_PYTHON)
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${target} PRIVATE -fno-semantic-interposition)
  endif()
endfunction()
