# SPDX-License-Identifier: Apache-2.0
# CCCL (CUB, Thrust, libcu++), pinned: the release prism is built and tested with, newer than the
# one CUDA 13.0 ships (3.0.1). Its headers and CMake files come from PyPI's nvidia-cuda-cccl wheel
# (one 4 MB file), so a fresh machine needs nothing but pip or the file itself:
#   - CCCL_DIR given (a CCCL >= the pin): that one;
#   - else a CCCL >= the pin that CMake finds by itself (a newer toolkit's serves);
#   - else the wheel, unpacked into the build tree: taken from PRISM_CCCL_WHEEL_DIR (default
#     <source>/.deps, where scripts/setup.sh puts it; carry that file to a machine without a
#     network), downloaded there with `python3 -m pip download` if it is missing.
# The installed package carries the unpacked CCCL (<libdir>/prism/cccl) and its prismConfig.cmake
# finds that one, so a consumer of the .cuh layer compiles against the CCCL prism was built with.
set(PRISM_CCCL_VERSION 3.5.0)
set(PRISM_CCCL_WHEEL_PACKAGE nvidia-cuda-cccl)
set(PRISM_CCCL_WHEEL_VERSION 13.3.5.0.6)  # CCCL 3.5.0
set(PRISM_CCCL_WHEEL_DIR "${CMAKE_CURRENT_SOURCE_DIR}/.deps" CACHE PATH
    "Where the CCCL wheel is looked for (and downloaded to)")

# Set when prism uses (and installs) its own unpacked copy.
set(PRISM_CCCL_BUNDLED OFF)

find_package(CCCL ${PRISM_CCCL_VERSION} CONFIG QUIET)
if(NOT CCCL_FOUND)
  set(wheel_name "nvidia_cuda_cccl-${PRISM_CCCL_WHEEL_VERSION}-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl")
  set(wheel "${PRISM_CCCL_WHEEL_DIR}/${wheel_name}")
  if(NOT EXISTS "${wheel}")
    find_package(Python3 COMPONENTS Interpreter)
    if(NOT Python3_FOUND)
      message(FATAL_ERROR "prism needs CCCL ${PRISM_CCCL_VERSION}: put ${wheel_name} into ${PRISM_CCCL_WHEEL_DIR} "
                          "or install python3 and pip, which fetch it")
    endif()
    message(STATUS "prism: downloading CCCL ${PRISM_CCCL_VERSION} (${PRISM_CCCL_WHEEL_PACKAGE}=="
                   "${PRISM_CCCL_WHEEL_VERSION}) into ${PRISM_CCCL_WHEEL_DIR}")
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" -m pip download --quiet --no-deps --only-binary=:all:
              --platform manylinux_2_17_x86_64 -d "${PRISM_CCCL_WHEEL_DIR}"
              "${PRISM_CCCL_WHEEL_PACKAGE}==${PRISM_CCCL_WHEEL_VERSION}"
      RESULT_VARIABLE status)
    if(NOT status EQUAL 0 OR NOT EXISTS "${wheel}")
      message(FATAL_ERROR "prism: could not download ${PRISM_CCCL_WHEEL_PACKAGE}==${PRISM_CCCL_WHEEL_VERSION} "
                          "(CCCL ${PRISM_CCCL_VERSION}); without a network, put ${wheel_name} into "
                          "${PRISM_CCCL_WHEEL_DIR}")
    endif()
  endif()
  # A wheel is a zip: its headers (nvidia/cu13/include/cccl) and CMake files
  # (nvidia/cu13/cccl/lib/cmake) are laid out again as an install prefix, include/ beside
  # lib/cmake/, which is where CCCL's CMake files look for the headers.
  set(unpacked "${PROJECT_BINARY_DIR}/_deps/cccl-wheel")
  set(PRISM_CCCL_PREFIX "${PROJECT_BINARY_DIR}/_deps/cccl-${PRISM_CCCL_VERSION}")
  if(NOT EXISTS "${PRISM_CCCL_PREFIX}/lib/cmake/cccl/cccl-config.cmake")
    file(REMOVE_RECURSE "${unpacked}" "${PRISM_CCCL_PREFIX}")
    file(ARCHIVE_EXTRACT INPUT "${wheel}" DESTINATION "${unpacked}" PATTERNS "nvidia/cu13/include/cccl/*"
         "nvidia/cu13/cccl/lib/cmake/*")
    file(MAKE_DIRECTORY "${PRISM_CCCL_PREFIX}/lib")
    file(RENAME "${unpacked}/nvidia/cu13/include/cccl" "${PRISM_CCCL_PREFIX}/include")
    file(RENAME "${unpacked}/nvidia/cu13/cccl/lib/cmake" "${PRISM_CCCL_PREFIX}/lib/cmake")
    file(REMOVE_RECURSE "${unpacked}")
  endif()
  find_package(CCCL ${PRISM_CCCL_VERSION} EXACT CONFIG REQUIRED PATHS "${PRISM_CCCL_PREFIX}/lib/cmake/cccl"
               NO_DEFAULT_PATH)
  set(PRISM_CCCL_BUNDLED ON)
endif()
message(STATUS "prism: CCCL ${CCCL_VERSION} from ${CCCL_DIR}")
