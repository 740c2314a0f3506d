# The libFuzzer targets of tests/fuzz as ctest tests (label "fuzz"); see docs/fuzzing.md.
#
# The main build uses gcc, libFuzzer needs clang: tests/fuzz is a separate CMake
# project that compiles the library sources again with clang and
# -fsanitize=fuzzer-no-link,address,undefined. Here we only find a clang that
# can link a fuzzer and add the tests:
#   fuzz.build     configures and builds tests/fuzz into <build>/fuzz (a fixture)
#   fuzz.<target>  runs build/fuzz/fuzz_<target> for a short deterministic budget
#   fuzz.seeds     the committed corpus is what tests/fuzz/make_seeds.py writes
# NSCD_BUILD_FUZZERS: AUTO (default: when clang with -fsanitize=fuzzer works),
# ON (fail the configuration without it) or OFF.

set(_fuzz_src "${PROJECT_SOURCE_DIR}/tests/fuzz")

# The corpus check needs only Python; it runs with or without clang.
add_test(NAME fuzz.seeds COMMAND /usr/bin/python3 "${_fuzz_src}/make_seeds.py" --check)
set_tests_properties(fuzz.seeds PROPERTIES LABELS fuzz)

# The degenerate-conic single-contact reproducers against an independent scan of
# 2e6 slip angles (numpy, mpmath; issue 28). Needs only Python and the library.
add_test(NAME fuzz.single_contact_scan
         COMMAND /usr/bin/python3 "${_fuzz_src}/scan_single_contact.py" $<TARGET_FILE:nscd>)
set_tests_properties(fuzz.single_contact_scan PROPERTIES LABELS fuzz TIMEOUT 600)

if(NSCD_BUILD_FUZZERS STREQUAL "OFF")
  return()
endif()

find_program(NSCD_FUZZ_CLANG NAMES clang clang-14 clang-15 clang-16
             DOC "clang that builds the libFuzzer targets (tests/fuzz)")
set(_fuzz_ok FALSE)
if(NSCD_FUZZ_CLANG)
  if(NSCD_FUZZ_CLANG_WORKS STREQUAL NSCD_FUZZ_CLANG)
    set(_fuzz_ok TRUE) # probed before with this compiler
  else()
    set(_probe_dir "${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe")
    file(MAKE_DIRECTORY "${_probe_dir}")
    file(WRITE "${_probe_dir}/probe.c"
         "#include <stddef.h>\n#include <stdint.h>\n"
         "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
         "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
    execute_process(
      COMMAND "${NSCD_FUZZ_CLANG}" -fsanitize=fuzzer,address,undefined probe.c -o probe
      WORKING_DIRECTORY "${_probe_dir}" RESULT_VARIABLE _probe_rc OUTPUT_QUIET ERROR_QUIET)
    if(_probe_rc EQUAL 0)
      set(_fuzz_ok TRUE)
      # only success is cached: installing libFuzzer later is noticed at the next configure
      set(NSCD_FUZZ_CLANG_WORKS "${NSCD_FUZZ_CLANG}" CACHE INTERNAL "clang links fuzzers")
    endif()
  endif()
endif()

if(NOT _fuzz_ok)
  if(NSCD_BUILD_FUZZERS STREQUAL "ON")
    message(FATAL_ERROR "NSCD_BUILD_FUZZERS=ON but no clang links -fsanitize=fuzzer "
                        "(Debian: apt-get install clang libfuzzer-14-dev)")
  endif()
  message(STATUS "Fuzzers: not built (no clang that links -fsanitize=fuzzer)")
  return()
endif()
message(STATUS "Fuzzers: ${NSCD_FUZZ_CLANG}")

set(_fuzz_bin "${PROJECT_BINARY_DIR}/fuzz")
add_test(NAME fuzz.build
  COMMAND bash "${_fuzz_src}/build.sh" "${PROJECT_SOURCE_DIR}" "${_fuzz_bin}" "${NSCD_FUZZ_CLANG}")
set_tests_properties(fuzz.build PROPERTIES LABELS fuzz FIXTURES_SETUP nscd_fuzzers
  RESOURCE_LOCK cpu_heavy TIMEOUT 900 COST 900) # first in a fresh tree: integration.cmake

# Short runs: executions (deterministic with -seed=1) and a time cap in seconds
# for slow machines. Each takes 1-8 s of CPU (the committed corpus replayed,
# then new inputs; rates measured 2026-11-30 in docs/fuzzing.md), so that on 2
# loaded cores no run reaches the cap, which would make its last executions
# depend on the machine: a regression check within make test's ten minutes
# (docs/testing.md, "Test tiers"); the search itself is `make fuzz`.
set(NSCD_FUZZ_BUDGETS
  "single_contact 25000 20"
  "lcp 30000 20"
  "fc3d 1000 20"
  "routh 500000 20"
  "event_driven 500 20"
  "world 300 20"
  "fclib 10000 20"
  "gfc3d 1500 20")
file(GLOB _fuzz_targets CONFIGURE_DEPENDS "${_fuzz_src}/fuzz_*.c")
foreach(_src ${_fuzz_targets})
  get_filename_component(_name "${_src}" NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" _target "${_name}")
  if(_target STREQUAL "fclib" AND NOT TARGET nscd_fclib)
    continue() # tests/fuzz builds fuzz_fclib only with libfclib and HDF5, like fclib/
  endif()
  set(_runs 5000)
  set(_time 20)
  foreach(_budget ${NSCD_FUZZ_BUDGETS})
    separate_arguments(_b UNIX_COMMAND "${_budget}")
    list(GET _b 0 _t)
    if(_t STREQUAL _target)
      list(GET _b 1 _runs)
      list(GET _b 2 _time)
    endif()
  endforeach()
  add_test(NAME fuzz.${_target}
    COMMAND bash "${_fuzz_src}/run.sh" "${_fuzz_bin}" "${_target}"
            "${_fuzz_src}/corpus/${_target}" "${_runs}" "${_time}")
  set_tests_properties(fuzz.${_target} PROPERTIES LABELS fuzz
    FIXTURES_REQUIRED nscd_fuzzers TIMEOUT 300)
endforeach()
