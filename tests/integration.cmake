# Integration tests: packaging, ABI, documentation and tooling checks.
# Included from tests/CMakeLists.txt (not in the sanitizer build). Each test is
# a small script under tests/ or abi/ that can also be run by hand; the
# arguments say where the sources and the build are.

set(_nscd_src "${PROJECT_SOURCE_DIR}")
set(_nscd_bin "${PROJECT_BINARY_DIR}")
set(_nscd_checks "${CMAKE_CURRENT_SOURCE_DIR}/checks")

# The installed library consumed through pkg-config (C, C++, static), through
# find_package(nscd) and through ctypes; also compiles the README example.
add_test(NAME consumer
  COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/consumer/run.sh" "${_nscd_src}" "${_nscd_bin}"
          "${_nscd_bin}/consumer")
set_tests_properties(consumer PROPERTIES LABELS integration RESOURCE_LOCK cpu_heavy TIMEOUT 600)

# Every public header compiles alone as C11 and as C++17 with -Werror.
add_test(NAME headers
  COMMAND bash "${_nscd_checks}/headers.sh" "${_nscd_src}" "${_nscd_bin}/headers")
set_tests_properties(headers PROPERTIES LABELS integration)

# Layers of src/ strictly downward, the world's internals only inside src/world/
# (docs/architecture.md, "Layers and folders").
add_test(NAME layers COMMAND /usr/bin/python3 "${_nscd_src}/tools/check_layers.py" "${_nscd_src}")
set_tests_properties(layers PROPERTIES LABELS integration)

# SONAME carries the ABI major; the dynamic symbol table holds nscd_* functions only.
add_test(NAME exports
  COMMAND bash "${_nscd_checks}/exports.sh" "${_nscd_src}" "$<TARGET_FILE:nscd>"
          "$<TARGET_FILE:nscd_static>")
set_tests_properties(exports PROPERTIES LABELS integration)

# ABI guard against the committed baseline abi/nscd-abi<ABI>.dump. abi-dumper
# needs debug info: in a build without it (Release, MinSizeRel) the check
# builds a RelWithDebInfo copy of the library in build/abi-debuginfo and
# compares that one (abi/check.sh), which takes a CPU-heavy minute the first time.
add_test(NAME abi
  COMMAND bash "${PROJECT_SOURCE_DIR}/abi/check.sh" "${_nscd_src}" "$<TARGET_FILE:nscd>"
          "${_nscd_bin}/abi" "${_nscd_bin}/abi-debuginfo")
string(TOUPPER "${CMAKE_BUILD_TYPE}" _nscd_build_type)
if("${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_nscd_build_type}}" MATCHES "(^| )-g")
  set_tests_properties(abi PROPERTIES LABELS integration TIMEOUT 300)
else() # probably no debug info: the check compiles the library again
  set_tests_properties(abi PROPERTIES LABELS integration TIMEOUT 900 RESOURCE_LOCK cpu_heavy)
endif()

# Binaries built against release 0.1 keep working: five 0.1.0 example
# programs, compiled with the 0.1.0 headers (tests/abi_0_1/include), linked
# against this libnscd.so.0 and checked by the physics they compute. The abi
# test compares against the newest baseline; this one keeps 0.1 honest.
add_test(NAME abi_0_1
  COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/abi_0_1/run.sh" "${_nscd_src}"
          "$<TARGET_FILE_DIR:nscd>" "${_nscd_bin}/abi_0_1")
set_tests_properties(abi_0_1 PROPERTIES LABELS integration TIMEOUT 300)

# CHANGELOG.md's "New functions" of the newest release against the exports
# of the three libraries since 0.1.0 (a companion not built is skipped).
add_test(NAME changelog
  COMMAND /usr/bin/python3 "${_nscd_checks}/changelog.py" "${_nscd_src}" "$<TARGET_FILE:nscd>"
          "$<IF:$<TARGET_EXISTS:nscd_fclib>,$<TARGET_FILE:nscd_fclib>,->"
          "$<IF:$<TARGET_EXISTS:nscd_mpi>,$<TARGET_FILE:nscd_mpi>,->")
set_tests_properties(changelog PROPERTIES LABELS integration)

# The same guard for the companion libraries against abi/nscd_fclib-abi<ABI>.dump
# and abi/nscd_mpi-abi<ABI>.dump, when they are built (libfclib, MPI found).
foreach(_nscd_companion nscd_fclib nscd_mpi)
  if(TARGET ${_nscd_companion})
    add_test(NAME abi_${_nscd_companion}
      COMMAND bash "${PROJECT_SOURCE_DIR}/abi/check.sh" "${_nscd_src}"
              "$<TARGET_FILE:${_nscd_companion}>" "${_nscd_bin}/abi_${_nscd_companion}"
              "${_nscd_bin}/abi-debuginfo")
    get_test_property(abi LABELS _nscd_abi_labels)
    get_test_property(abi TIMEOUT _nscd_abi_timeout)
    # one RelWithDebInfo copy (abi-debuginfo) shared with the abi test: one at a time
    set_tests_properties(abi_${_nscd_companion} PROPERTIES LABELS integration
                         TIMEOUT ${_nscd_abi_timeout} RESOURCE_LOCK abi_debuginfo)
  endif()
endforeach()
set_property(TEST abi APPEND PROPERTY RESOURCE_LOCK abi_debuginfo)

# API reference: Doxygen with every warning an error, output in the build tree.
add_test(NAME doxygen
  COMMAND "${CMAKE_COMMAND}" -E env "NSCD_DOXYGEN_OUTPUT=${_nscd_bin}/doxygen"
          doxygen docs/Doxyfile
  WORKING_DIRECTORY "${_nscd_src}")
set_tests_properties(doxygen PROPERTIES LABELS integration TIMEOUT 300)
add_custom_target(doxygen
  COMMAND "${CMAKE_COMMAND}" -E env "NSCD_DOXYGEN_OUTPUT=${_nscd_bin}/doxygen"
          doxygen docs/Doxyfile
  WORKING_DIRECTORY "${_nscd_src}"
  COMMENT "API reference in ${_nscd_bin}/doxygen/html/index.html")

# The unit tests again, in a nested build with AddressSanitizer + UBSan.
add_test(NAME sanitizers
  COMMAND bash "${_nscd_checks}/sanitizers.sh" "${_nscd_src}" "${_nscd_bin}/sanitize")
# COST: a fresh build tree has no timing history, and ctest would start the
# longest test last; the nested builds go first so that they overlap the
# many short tests instead of ending the run alone.
set_tests_properties(sanitizers PROPERTIES LABELS integration RESOURCE_LOCK cpu_heavy TIMEOUT 1200
                     COST 1000)

# The valgrind tier (docs/testing.md, "Test tiers"): the unit tests under
# valgrind (definite and possible leaks fail), except the few listed in
# NSCD_VALGRIND_SKIP, at the small size of their longest scenes
# (NSCD_TEST_SMALL=1, tests/unit/test_size.h, and the tests' own size
# variables below). valgrind costs 30-100 times the native run: all of them
# at full size took 1 580 s of CPU, the 7 skipped ones 950 s of it. The
# skipped tests reach 0.7 % of the library lines the unit tests reach and
# no kept test does (a gcov run per test, docs/testing.md); they still run
# natively (unit.*), under another OpenBLAS (portable.*) and under ASan +
# UBSan (sanitizers). -DNSCD_VALGRIND_ALL=ON runs every unit test under
# valgrind at full size with --track-origins=yes, as before the tiers
# (about 13 minutes on 2 cores). A new unit test is under valgrind by default.
# OPENBLAS_NUM_THREADS=1: OpenBLAS otherwise starts a thread pool at load time
# whose threads are never joined (it lives until exit); valgrind then reports
# their stacks as "possibly lost". One thread is also all the unit tests need.
option(NSCD_VALGRIND_ALL "Run every unit test under valgrind at full size (make test runs a subset)" OFF)
set(NSCD_VALGRIND_SKIP
    # 190-255 s of CPU each under valgrind (1.6-2.3 s native); their steppers
    # and local solvers run under valgrind in test_time_stepping_hets,
    # test_time_stepping_impulse_subspace (ED-alpha), test_variable_step,
    # test_world_time_stepping and test_time_stepping_implicit
    test_time_stepping test_time_stepping_alpha test_time_stepping_prox
    test_time_stepping_slider_crank
    # 90 s for its random sweep; the MDP solver runs under valgrind in
    # test_world, test_coulomb_single and test_fc3d
    test_mdp_single
    # long world scenes (29 s, 11 s) whose code test_world,
    # test_world_checkpoint and test_joints reach under valgrind
    test_world_robust test_world_step_joints
    # 100 s under valgrind, which runs the pool's threads one at a time: the
    # threaded stages run under ThreadSanitizer (tsan.test_world_threads) and
    # ASan + UBSan (sanitizers), their serial arithmetic under valgrind in
    # test_world, test_world_resistance and test_world_convex
    test_world_threads)
set(_nscd_valgrind_environment
    "OPENBLAS_NUM_THREADS=1;CMOCKA_MESSAGE_OUTPUT=STDOUT;NSCD_TEST_SMALL=1;NSCD_IMPACT_FRICTION_SAMPLES=100;NSCD_BOX_SCAN_HEIGHTS=5")
# --track-origins=yes finds nothing more, it only says where an uninitialised
# value came from, at 1.6 times the cost: rerun a failing test with it
# (NSCD_VALGRIND_FLAGS, or by hand: docs/testing.md).
set(NSCD_VALGRIND_FLAGS "" CACHE STRING "Extra valgrind options of the valgrind.* tests (e.g. --track-origins=yes)")
set(_nscd_valgrind_flags ${NSCD_VALGRIND_FLAGS})
if(NSCD_VALGRIND_ALL)
  set(_nscd_valgrind_environment "OPENBLAS_NUM_THREADS=1;CMOCKA_MESSAGE_OUTPUT=STDOUT")
  set(_nscd_valgrind_flags --track-origins=yes ${NSCD_VALGRIND_FLAGS})
endif()
foreach(_name ${NSCD_VALGRIND_SKIP})
  if(NOT "${PROJECT_SOURCE_DIR}/tests/unit/${_name}.c" IN_LIST NSCD_UNIT_TESTS)
    message(FATAL_ERROR "NSCD_VALGRIND_SKIP names ${_name}, which is not a unit test")
  endif()
endforeach()
foreach(_src ${NSCD_UNIT_TESTS})
  get_filename_component(_name "${_src}" NAME_WE)
  if(_name IN_LIST NSCD_VALGRIND_SKIP AND NOT NSCD_VALGRIND_ALL)
    continue()
  endif()
  add_test(NAME valgrind.${_name}
    COMMAND valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,possible
            --show-leak-kinds=definite,possible ${_nscd_valgrind_flags} --quiet
            "--suppressions=${CMAKE_CURRENT_SOURCE_DIR}/checks/valgrind.supp"
            $<TARGET_FILE:${_name}>
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/work/valgrind")
  set_tests_properties(valgrind.${_name} PROPERTIES LABELS valgrind TIMEOUT 900
    ENVIRONMENT "${_nscd_valgrind_environment}")
endforeach()

# Short examples under valgrind too: they drive the shared library end to end.
# Only fast ones belong here (valgrind is ~50x slower); add names as needed.
set(NSCD_VALGRIND_EXAMPLES bouncing_ball slider_crank)
foreach(_name ${NSCD_VALGRIND_EXAMPLES})
  if(TARGET ${_name})
    add_test(NAME valgrind.example.${_name}
      COMMAND valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,possible
              --show-leak-kinds=definite,possible --quiet
              "--suppressions=${CMAKE_CURRENT_SOURCE_DIR}/checks/valgrind.supp"
              $<TARGET_FILE:${_name}> --json)
    set_tests_properties(valgrind.example.${_name} PROPERTIES LABELS valgrind TIMEOUT 900
      ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
  endif()
endforeach()

# Source formatting with the repository .clang-format.
add_test(NAME format
  COMMAND bash "${_nscd_checks}/format.sh" "${_nscd_src}")
set_tests_properties(format PROPERTIES LABELS integration)
