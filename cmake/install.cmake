# Installation: headers, shared + static libraries, pkg-config file and a CMake
# package so that consumers can `find_package(nscd)` and link `nscd::nscd`.
include(CMakePackageConfigHelpers)

install(TARGETS nscd nscd_static
  EXPORT nscdTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${NSCD_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nscd)

install(EXPORT nscdTargets
  NAMESPACE nscd::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nscd)
configure_package_config_file(
  "${CMAKE_CURRENT_SOURCE_DIR}/cmake/nscdConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nscd)
# find_package(nscd 0.1) accepts 0.2 and every later release of the same
# major: a minor release only adds (docs/abi.md, docs/release.md), so what a
# project built against 0.1 uses is still there. (SameMinorVersion, before
# 0.2, refused 0.2 to a project that asked for 0.1.) The consumer tests ask
# for 0.1 on purpose.
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nscd)

# The .pc file locates the prefix relative to itself (${pcfiledir}), so an
# installation can be moved or staged (`cmake --install build --prefix DIR`,
# DESTDIR) and still be found through PKG_CONFIG_PATH.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(NSCD_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _nscd_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" _nscd_pc_up "${_nscd_pc_up}")
  set(NSCD_PC_PREFIX "\${pcfiledir}/${_nscd_pc_up}")
endif()
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/pkgconfig/nscd.pc.in"
               "${CMAKE_CURRENT_BINARY_DIR}/nscd.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/nscd.pc"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
