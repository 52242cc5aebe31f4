# SPDX-License-Identifier: Apache-2.0
# Installs the prism build at PRISM_BUILD into a scratch prefix, then builds and runs the consumer
# against that package with find_package, and checks what the package did to the consumer's
# compile line: its own C++23 (no -std=c++20 from prism) and <prism/version.hpp> from the
# install, and runs the standard forms (standard_forms.cpp). Then configures the consumer with
# add_subdirectory.
# Then a CUDA consumer of the generic layer (consumer/cuda) against the same package.
#   cmake -DPRISM_BUILD=<build> -DPRISM_SOURCE=<checkout> -DPRISM_VERSION=<x.y.z>
#         [-DCMAKE_CXX_COMPILER=...] [-DCMAKE_CUDA_COMPILER=...] [-DCUDA_ARCHITECTURES=...]
#         [-DGENERATOR=...] -P check.cmake
cmake_minimum_required(VERSION 3.25)
set(prefix ${PRISM_BUILD}/consumer/install)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output)
  message("${output}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}")
  endif()
  set(output "${output}" PARENT_SCOPE)
endfunction()
if(GENERATOR)
  set(generator -G ${GENERATOR})
endif()

file(REMOVE_RECURSE ${PRISM_BUILD}/consumer)
run(${CMAKE_COMMAND} --install ${PRISM_BUILD} --prefix ${prefix})
if(NOT EXISTS ${prefix}/include/prism/version.hpp)
  message(FATAL_ERROR "the package has no <prism/version.hpp>")
endif()

set(build ${PRISM_BUILD}/consumer/package)
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${build} ${generator}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${build})

# The consumer's compile line, from the build's compile_commands.json.
file(READ ${build}/compile_commands.json commands)
string(JSON count LENGTH "${commands}")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON file GET "${commands}" ${i} file)
  if(file MATCHES "/main\\.cpp$")
    string(JSON line GET "${commands}" ${i} command)
  endif()
endforeach()
if(NOT line)
  message(FATAL_ERROR "no compile line for main.cpp in ${build}/compile_commands.json")
endif()
message("consumer compile line: ${line}")
if(NOT line MATCHES "(^| )-std=(c|gnu)\\+\\+23( |$)")
  message(FATAL_ERROR "the consumer asked for C++23 and its compile line has no -std=c++23")
endif()
if(line MATCHES "-std=(c|gnu)\\+\\+20")
  message(FATAL_ERROR "prism put -std=c++20 on a C++23 consumer's compile line")
endif()
if(line MATCHES "-fopenmp")
  message(FATAL_ERROR "prism put -fopenmp on a plain C++ consumer's compile line")
endif()

# It runs, and says the installed version (from <prism/version.hpp>).
run(${build}/consumer)
if(PRISM_VERSION AND NOT output MATCHES "prism ${PRISM_VERSION}:")
  message(FATAL_ERROR "the consumer did not say prism ${PRISM_VERSION}")
endif()

# The standard forms, on std::vector with the host compiler alone, check their own results.
run(${build}/standard_forms)
if(NOT output MATCHES "^standard forms: ")
  message(FATAL_ERROR "the standard forms program did not report: ${output}")
endif()
run(${build}/algorithms_forms)
if(NOT output MATCHES "^algorithms: ")
  message(FATAL_ERROR "the algorithms program did not report: ${output}")
endif()

# A CUDA consumer of the generic layer compiles against the CCCL prism was built with (its
# static_assert: CUB 3.5 or newer), whatever CCCL the toolkit ships, and runs.
if(CMAKE_CUDA_COMPILER)
  set(build ${PRISM_BUILD}/consumer/cuda)
  set(architectures)
  if(CUDA_ARCHITECTURES)
    set(architectures -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES})
  endif()
  run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/cuda -B ${build} ${generator}
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER} ${architectures})
  run(${CMAKE_COMMAND} --build ${build})
  run(${build}/cuda_consumer)
  if(NOT output MATCHES "^CUB 30(0[5-9]|[1-9][0-9])[0-9][0-9], ")
    message(FATAL_ERROR "the CUDA consumer did not compile against CUB 3.5 or newer: ${output}")
  endif()
endif()

# add_subdirectory: configuring proves the targets and options compose (building it would
# compile the library a second time). prism's tests, benchmarks and examples are off there.
set(cuda)
if(CMAKE_CUDA_COMPILER)
  set(cuda -DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER})
endif()
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${PRISM_BUILD}/consumer/subdirectory
    ${generator} -DPRISM_SOURCE_DIR=${PRISM_SOURCE} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    ${cuda})
