# Optional UMFPACK (Debian's libsuitesparse-dev): the sparse LU of the fc3d
# Newton solver (src/contact/solvers/fc3d_newton.c) for problems beyond the dense LU.
# NSCD_WITH_UMFPACK=AUTO (default: used when found), ON (required) or OFF.
# Without it Newton solves up to NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS contacts
# by a dense LU and refuses larger ones (docs/fc3d.md).
set(NSCD_WITH_UMFPACK AUTO CACHE STRING
    "Sparse LU for the fc3d Newton solver: AUTO (when UMFPACK is found), ON or OFF")
set_property(CACHE NSCD_WITH_UMFPACK PROPERTY STRINGS AUTO ON OFF)
set(NSCD_UMFPACK_FOUND FALSE)
set(NSCD_PC_UMFPACK "") # the static library's extra link flag in nscd.pc
if(NOT NSCD_WITH_UMFPACK STREQUAL "OFF")
  find_path(NSCD_UMFPACK_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
  find_library(NSCD_UMFPACK_LIBRARY umfpack)
  if(NSCD_UMFPACK_INCLUDE_DIR AND NSCD_UMFPACK_LIBRARY)
    set(NSCD_UMFPACK_FOUND TRUE)
  elseif(NSCD_WITH_UMFPACK STREQUAL "ON")
    message(FATAL_ERROR "NSCD_WITH_UMFPACK=ON but umfpack.h / libumfpack were not found "
                        "(install libsuitesparse-dev)")
  endif()
endif()
if(NSCD_UMFPACK_FOUND)
  message(STATUS "UMFPACK: ${NSCD_UMFPACK_LIBRARY}: sparse LU for the fc3d Newton solver")
  target_compile_definitions(nscd_objects PRIVATE NSCD_HAVE_UMFPACK)
  target_include_directories(nscd_objects SYSTEM PRIVATE "${NSCD_UMFPACK_INCLUDE_DIR}")
  set(NSCD_PC_UMFPACK " -lumfpack")
  foreach(_t nscd nscd_static)
    target_link_libraries(${_t} PRIVATE "${NSCD_UMFPACK_LIBRARY}")
  endforeach()
else()
  message(STATUS "UMFPACK not used: the fc3d Newton solver uses a dense LU "
                 "(up to NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS contacts)")
endif()
