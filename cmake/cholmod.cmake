# Optional CHOLMOD (SuiteSparse, Debian's libsuitesparse-dev) for the global
# fc3d solver (src/contact/solvers/gfc3d_cholmod.c, docs/global_problems.md): used when
# found (NSCD_WITH_CHOLMOD=AUTO, the default), required with ON, skipped with
# OFF. Without it nscd_gfc3d_solve uses its own sparse LDL' only.
set(NSCD_WITH_CHOLMOD AUTO CACHE STRING "Use CHOLMOD for large global problems: AUTO, ON or OFF")
set_property(CACHE NSCD_WITH_CHOLMOD PROPERTY STRINGS AUTO ON OFF)
set(NSCD_CHOLMOD_FOUND FALSE)
set(NSCD_PC_CHOLMOD "")
if(NOT NSCD_WITH_CHOLMOD STREQUAL "OFF")
  find_path(NSCD_CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
  find_library(NSCD_CHOLMOD_LIBRARY cholmod)
  if(NSCD_CHOLMOD_INCLUDE_DIR AND NSCD_CHOLMOD_LIBRARY)
    set(NSCD_CHOLMOD_FOUND TRUE)
    set(NSCD_PC_CHOLMOD " -lcholmod")
    message(STATUS "CHOLMOD: ${NSCD_CHOLMOD_LIBRARY} (global fc3d problems)")
    target_include_directories(nscd_objects SYSTEM PRIVATE "${NSCD_CHOLMOD_INCLUDE_DIR}")
    target_compile_definitions(nscd_objects PRIVATE NSCD_HAVE_CHOLMOD)
    foreach(_t nscd nscd_static)
      target_link_libraries(${_t} PRIVATE "${NSCD_CHOLMOD_LIBRARY}")
    endforeach()
  elseif(NSCD_WITH_CHOLMOD STREQUAL "ON")
    message(FATAL_ERROR "NSCD_WITH_CHOLMOD=ON but cholmod.h or libcholmod was not found "
                        "(install libsuitesparse-dev)")
  else()
    message(STATUS "CHOLMOD not found: global problems use the own sparse LDL' only "
                   "(install libsuitesparse-dev)")
  endif()
endif()
