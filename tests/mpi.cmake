# Tests of libnscd_mpi (mpi/, include/nscd/world_mpi.h), when it is built (MPI
# found): tests/mpi/test_world_mpi.c under mpirun with 1 rank (bitwise the
# serial world), 2 ranks (the acceptance runs of issue 15) and 4 ranks
# oversubscribed on this 2-core machine (a correctness check only), and the
# exports of the library. Labelled "mpi", not "unit": the sanitizer build
# runs the unit tests, and Open MPI's own allocations would be reported as leaks.
if(NOT TARGET nscd_mpi)
  return()
endif()
find_package(MPI QUIET COMPONENTS C) # its imported target is local to a directory
add_executable(test_world_mpi "${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_world_mpi.c")
target_compile_options(test_world_mpi PRIVATE ${NSCD_WARNINGS})
target_link_libraries(test_world_mpi PRIVATE nscd_mpi nscd MPI::MPI_C m)

# mpirun refuses root unless told; --oversubscribe allows more ranks than cores.
# mpi_yield_when_idle: a rank waiting in MPI gives its core up instead of
# polling, which matters when ranks share the cores with other processes
# (the Python tests that start mpirun; mpi.world_np4 beside two busy loops:
# 51 s polling, 9 s yielding; 1.6 s on idle cores either way).
set(_mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_mpi_yield_when_idle=1;OPENBLAS_NUM_THREADS=1")
foreach(_np 1 2 4)
  set(_what all)
  if(_np EQUAL 4)
    set(_what conserved,balance)
  endif()
  add_test(NAME mpi.world_np${_np}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_np} ${MPIEXEC_PREFLAGS}
            $<TARGET_FILE:test_world_mpi> ${_what})
  # RUN_SERIAL: alone, the runs take 1-3 s; beside another test (ctest -j)
  # their ranks wait for cores at every collective (make test on a clean
  # clone, 2 cores: np4 104 s, np2 33 s, and Open MPI already yields when
  # oversubscribed).
  set_tests_properties(mpi.world_np${_np} PROPERTIES LABELS mpi TIMEOUT 600
    ENVIRONMENT "${_mpi_env}" RUN_SERIAL TRUE)
endforeach()

# Checkpoint and bitwise restart of the distributed world (docs/checkpoint.md).
add_executable(test_world_mpi_checkpoint "${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_world_mpi_checkpoint.c")
target_compile_options(test_world_mpi_checkpoint PRIVATE ${NSCD_WARNINGS})
target_link_libraries(test_world_mpi_checkpoint PRIVATE nscd_mpi nscd MPI::MPI_C m)
foreach(_np 1 2)
  add_test(NAME mpi.checkpoint_np${_np}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_np} ${MPIEXEC_PREFLAGS}
            $<TARGET_FILE:test_world_mpi_checkpoint>
            "${CMAKE_CURRENT_BINARY_DIR}/world_mpi_checkpoint_np${_np}")
  set_tests_properties(mpi.checkpoint_np${_np} PROPERTIES LABELS mpi TIMEOUT 600
    ENVIRONMENT "${_mpi_env}" RUN_SERIAL TRUE) # np2 beside another test: 53 s
endforeach()

# SONAME and exports of libnscd_mpi: nscd_world_mpi_* only (the core's objects
# it is linked from stay hidden).
add_test(NAME mpi.exports
  COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/mpi/exports.sh" "${PROJECT_SOURCE_DIR}"
          $<TARGET_FILE:nscd_mpi>)
set_tests_properties(mpi.exports PROPERTIES LABELS mpi)

# The ```c-mpi blocks of docs/guide (13_distributed_world.md) compiled with
# mpicc and run under mpirun -np 2 (the guide test runs only c and python).
add_test(NAME mpi.guide
  COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/mpi/check_guide_mpi.py"
          "${PROJECT_SOURCE_DIR}" "${PROJECT_BINARY_DIR}" "${CMAKE_CURRENT_BINARY_DIR}/guide_mpi"
          "${MPIEXEC_EXECUTABLE}")
set_tests_properties(mpi.guide PROPERTIES LABELS mpi TIMEOUT 600)

# valgrind on 2 ranks (one test of the program: shadows, migration, writer);
# Open MPI's own allocations are ignored, anything through nscd fails.
if(NOT NSCD_SANITIZE)
  add_test(NAME valgrind.test_world_mpi
    COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/mpi/valgrind_check.py"
            "${PROJECT_SOURCE_DIR}" "${MPIEXEC_EXECUTABLE}" $<TARGET_FILE:test_world_mpi> vtk
            "${CMAKE_CURRENT_BINARY_DIR}/valgrind_mpi")
  set_tests_properties(valgrind.test_world_mpi PROPERTIES LABELS "mpi;valgrind" TIMEOUT 1600)
endif()
