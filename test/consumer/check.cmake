# Installs the prism build at PRISM_BUILD into a scratch prefix, then builds and runs the consumer
# against that package with find_package; then configures the consumer with add_subdirectory.
set(prefix ${PRISM_BUILD}/consumer/install)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PRISM_BUILD}/consumer)
run(${CMAKE_COMMAND} --install ${PRISM_BUILD} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${PRISM_BUILD}/consumer/package
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${PRISM_BUILD}/consumer/package)
run(${PRISM_BUILD}/consumer/package/consumer)
# add_subdirectory: configuring proves the targets and options compose (building it would
# compile the library a second time).
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${PRISM_BUILD}/consumer/subdirectory
    -DPRISM_SOURCE_DIR=${PRISM_SOURCE} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
