# Install test: installs a flowvm build tree into a scratch prefix, then builds
# and runs a tiny out-of-tree project that finds it with find_package(flowvm).
#
#   cmake -DFLOWVM_BUILD_DIR=<flowvm build dir>
#         -DCONSUMER_SOURCE_DIR=<this directory>
#         -DWORK_DIR=<scratch dir, removed first>
#         -P run_test.cmake
#
# If the flowvm build was configured with FLOWVM_SANITIZE, the consumer is
# built with the same compiler and the same -fsanitize flags, so that it links
# against the sanitizer runtime the installed library needs.
cmake_minimum_required(VERSION 3.22)

foreach(var FLOWVM_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_consumer: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")

# Runs a command; on failure stops with the step name and everything it printed.
# The command's combined output is left in ${out_var}.
function(run_step step out_var)
  execute_process(
    COMMAND ${ARGN}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE out
    TIMEOUT 400)
  if(NOT rc STREQUAL "0")
    list(JOIN ARGN " " cmdline)
    message(FATAL_ERROR
      "install_consumer: ${step} failed (exit ${rc})\n"
      "command: ${cmdline}\n"
      "---- output ----\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Reads NAME from the flowvm build's CMakeCache.txt into ${out_var} ("" if unset).
function(read_cache name out_var)
  set(value "")
  file(STRINGS "${FLOWVM_BUILD_DIR}/CMakeCache.txt" lines REGEX "^${name}:[A-Z]+=")
  if(lines)
    list(GET lines 0 line)
    string(REGEX REPLACE "^${name}:[A-Z]+=" "" value "${line}")
  endif()
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

if(NOT EXISTS "${FLOWVM_BUILD_DIR}/CMakeCache.txt")
  message(FATAL_ERROR "install_consumer: ${FLOWVM_BUILD_DIR} is not a configured build directory")
endif()

# ---- 1. install into a fresh prefix --------------------------------------------
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
run_step("cmake --install" install_out
  "${CMAKE_COMMAND}" --install "${FLOWVM_BUILD_DIR}" --prefix "${prefix}")

if(NOT EXISTS "${prefix}/bin/flowvm")
  message(FATAL_ERROR
    "install_consumer: ${prefix}/bin/flowvm was not installed\n"
    "---- install output ----\n${install_out}")
endif()

# ---- 2. configure and build the consumer ----------------------------------------
read_cache(CMAKE_CXX_COMPILER cxx)
read_cache(FLOWVM_SANITIZE sanitize)
read_cache(CMAKE_BUILD_TYPE build_type)

set(configure_args
  -S "${CONSUMER_SOURCE_DIR}"
  -B "${consumer_build}"
  -G Ninja
  "-DCMAKE_PREFIX_PATH=${prefix}")
if(build_type)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${build_type}")
endif()
if(sanitize)
  # Same compiler (its sanitizer runtime) and flags as the installed library.
  if(cxx)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${cxx}")
  endif()
  set(san_flags "-fsanitize=${sanitize} -fno-omit-frame-pointer")
  list(APPEND configure_args
    "-DCMAKE_CXX_FLAGS=${san_flags}"
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${sanitize}"
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=${sanitize}")
endif()

run_step("configuring the consumer" configure_out "${CMAKE_COMMAND}" ${configure_args})
run_step("building the consumer" build_out "${CMAKE_COMMAND}" --build "${consumer_build}")

# ---- 3. run it -----------------------------------------------------------------
set(lib_path "${prefix}/lib:${prefix}/lib/x86_64-linux-gnu")
if(DEFINED ENV{LD_LIBRARY_PATH} AND NOT "$ENV{LD_LIBRARY_PATH}" STREQUAL "")
  string(APPEND lib_path ":$ENV{LD_LIBRARY_PATH}")
endif()
run_step("running the consumer" run_out
  "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${lib_path}" "${consumer_build}/consumer")
if(NOT run_out MATCHES "float")
  message(FATAL_ERROR
    "install_consumer: the consumer's output does not mention 'float'\n"
    "---- output ----\n${run_out}")
endif()

# ---- 4. the installed command line finds its library without help ---------------
# Needs an install RPATH ($ORIGIN/../lib) on the flowvm executable. Only a
# loader failure counts here; what `flowvm --help` itself returns does not.
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "${prefix}/bin/flowvm" --help
  RESULT_VARIABLE cli_rc
  OUTPUT_VARIABLE cli_out
  ERROR_VARIABLE cli_out
  TIMEOUT 60)
if(cli_out MATCHES "error while loading shared libraries")
  message(FATAL_ERROR
    "install_consumer: the installed ${prefix}/bin/flowvm cannot find its shared "
    "libraries without LD_LIBRARY_PATH; the top-level CMakeLists.txt needs\n"
    "  set(CMAKE_INSTALL_RPATH \"\$ORIGIN/../\${CMAKE_INSTALL_LIBDIR}\")\n"
    "before the targets are defined.\n---- output ----\n${cli_out}")
endif()

# ---- 5. the installed Python package imports and runs a step, unhelped -----------
read_cache(FLOWVM_BUILD_PYTHON build_python)
read_cache(FLOWVM_PYTHON_INSTALL_DIR py_dir)
read_cache(Python_EXECUTABLE python)
if(NOT build_python STREQUAL "OFF" AND py_dir AND python)
  if(NOT EXISTS "${prefix}/${py_dir}/flowvm/compat/v1/__init__.py")
    message(FATAL_ERROR "install_consumer: the Python package is not in ${prefix}/${py_dir}\n"
                        "---- install output ----\n${install_out}")
  endif()
  run_step("running the installed Python package" py_out
    "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "PYTHONPATH=${prefix}/${py_dir}"
    "${python}" -c "import flowvm.compat.v1 as tf; import flowvm; assert flowvm.__file__.startswith('${prefix}'), flowvm.__file__; print('python', tf.Session().run(tf.constant(2.0) * 3.0 if hasattr(tf.Tensor, '__mul__') else tf.constant(6.0)))")
  if(NOT py_out MATCHES "python 6.0")
    message(FATAL_ERROR "install_consumer: the installed Python package printed\n${py_out}")
  endif()
endif()

message(STATUS "install_consumer: OK\n${run_out}")
