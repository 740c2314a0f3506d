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
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/nscdConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nscd)

configure_file("${CMAKE_CURRENT_SOURCE_DIR}/pkgconfig/nscd.pc.in"
               "${CMAKE_CURRENT_BINARY_DIR}/nscd.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/nscd.pc"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
