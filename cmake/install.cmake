# Installation: libravel, its headers under include/ravel/, ravel.pc for
# pkg-config, and a CMake package (find_package(ravel) -> ravel::ravel).
include(CMakePackageConfigHelpers)

file(GLOB RAVEL_PUBLIC_HEADERS
  ${PROJECT_SOURCE_DIR}/core/include/ravel/*.h
  ${PROJECT_SOURCE_DIR}/comm/include/ravel/*.h
  ${PROJECT_SOURCE_DIR}/relalg/include/ravel/*.h)
install(FILES ${RAVEL_PUBLIC_HEADERS}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ravel)

install(TARGETS ravel EXPORT ravelTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ravelTargets NAMESPACE ravel::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ravel)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ravelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ravelConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ravel)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ravelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ravelConfig.cmake
              ${PROJECT_BINARY_DIR}/ravelConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ravel)

configure_file(${PROJECT_SOURCE_DIR}/cmake/ravel.pc.in
               ${PROJECT_BINARY_DIR}/ravel.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ravel.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
