# ctest layering_includes: the #include lines of the library follow the layers
# of DESIGN.md. A file under src/<layer>/ may include headers of its own layer
# and of the layers below it; public headers (include/flowvm/...) belong to
# the layer that implements them. Tools and examples use public headers only.
# Test sources (*_test.cc, *_test_util.h) are exempt: they may use anything.
#
#   cmake -DSOURCE_DIR=<repository root> -P check_layering.cmake
#
# The link step enforces the same direction for symbols (each layer is a
# shared library linked with --no-undefined against the layers below).
cmake_minimum_required(VERSION 3.22)
if(NOT DEFINED SOURCE_DIR)
  message(FATAL_ERROR "check_layering: -DSOURCE_DIR=... is required")
endif()

# Rank of each folder under src/: a file may include ranks <= its own.
set(rank_core 0)
set(rank_graph 1)
set(rank_ops 2)
set(rank_kernels 2)
set(rank_runtime 3)
set(rank_distributed 4)
set(rank_cc 5)
set(rank_python 6)

# Public headers -> the layer that implements them. A public header missing
# here is an error, so that a new one is placed deliberately.
set(public_core status dtype tensor tensor_shape npy checkpoint allocator resource_handle variant record_io credentials
    summary_writer event_reader)
set(public_graph graph_io)
set(public_kernels simd)
set(public_runtime session inspect op_catalog trace)
set(public_distributed server cluster)

function(rank_of_public header out)
  # Generated protobuf headers belong to the lowest layer.
  if(header MATCHES "\\.pb\\.h$")
    set(${out} 0 PARENT_SCOPE)
    return()
  endif()
  if(header MATCHES "^cc/")
    set(${out} ${rank_cc} PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "\\.h$" "" stem "${header}")
  foreach(layer core graph kernels runtime distributed)
    list(FIND public_${layer} "${stem}" found)
    if(NOT found EQUAL -1)
      set(${out} ${rank_${layer}} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} -1 PARENT_SCOPE)
endfunction()

set(problems "")
set(checked 0)

file(GLOB layer_dirs LIST_DIRECTORIES true "${SOURCE_DIR}/src/*")
foreach(dir ${layer_dirs})
  if(NOT IS_DIRECTORY "${dir}")
    continue()
  endif()
  get_filename_component(layer "${dir}" NAME)
  if(NOT DEFINED rank_${layer})
    string(APPEND problems "src/${layer}/ is not a known layer: give it a rank in tests/check_layering.cmake\n")
    continue()
  endif()
  set(own ${rank_${layer}})
  file(GLOB_RECURSE files "${dir}/*.h" "${dir}/*.cc")
  foreach(file ${files})
    if(file MATCHES "_test\\.cc$|_test_util\\.h$|/testing/")
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${file}")
    file(STRINGS "${file}" includes REGEX "^#include \"")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
      if(inc MATCHES "^flowvm/(.*)$")
        rank_of_public("${CMAKE_MATCH_1}" r)
        if(r EQUAL -1)
          string(APPEND problems "${rel}: includes ${inc}, a public header this check does not know\n")
        elseif(r GREATER own)
          string(APPEND problems "${rel}: includes ${inc}, which belongs to a higher layer\n")
        endif()
      elseif(inc MATCHES "^([a-z_]+)/")
        set(target_layer "${CMAKE_MATCH_1}")
        if(NOT DEFINED rank_${target_layer})
          string(APPEND problems "${rel}: includes ${inc}, which is not a layer's header\n")
        elseif(rank_${target_layer} GREATER own)
          string(APPEND problems "${rel}: includes ${inc} (layer ${target_layer} is above ${layer})\n")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

# Tools and examples: public headers and their own files only.
file(GLOB_RECURSE user_files "${SOURCE_DIR}/tools/*.h" "${SOURCE_DIR}/tools/*.cc"
     "${SOURCE_DIR}/examples/*.h" "${SOURCE_DIR}/examples/*.cc")
foreach(file ${user_files})
  if(file MATCHES "_test\\.cc$")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(RELATIVE_PATH rel "${SOURCE_DIR}" "${file}")
  file(STRINGS "${file}" includes REGEX "^#include \"")
  foreach(line ${includes})
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
    if(inc MATCHES "^(core|graph|ops|kernels|runtime|distributed|cc|python)/")
      string(APPEND problems "${rel}: includes the internal header ${inc}; tools and examples use include/flowvm/ only\n")
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "layering violations:\n${problems}")
endif()
message(STATUS "check_layering: ${checked} files follow the layers")
