# Installation: libravel, its headers under include/ravel/, ravel.pc for
# pkg-config, and a CMake package (find_package(ravel) -> ravel::ravel).
include(CMakePackageConfigHelpers)

file(GLOB RAVEL_PUBLIC_HEADERS
  ${PROJECT_SOURCE_DIR}/core/include/ravel/*.h
  ${PROJECT_SOURCE_DIR}/comm/include/ravel/*.h
  ${PROJECT_SOURCE_DIR}/relalg/include/ravel/*.h
  ${PROJECT_SOURCE_DIR}/datalog/include/ravel/*.h)
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

# A program built with `pkg-config --libs ravel` gets an RPATH to libdir, so
# that it runs from a prefix the loader does not search (the usual case for
# a user's own prefix) without LD_LIBRARY_PATH.  Where libdir is one of the
# compiler's implicit link directories (/usr/lib/...) the loader finds
# libravel anyway and an RPATH would only shadow the system's search order,
# so none is added.  find_package(ravel) needs nothing of the kind: CMake
# puts the imported library's directory into a consumer's build RPATH itself.
list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}"
     RAVEL_LIBDIR_IS_IMPLICIT)
if(RAVEL_LIBDIR_IS_IMPLICIT EQUAL -1)
  set(RAVEL_PC_RPATH "-Wl,-rpath,\${libdir} ")
else()
  set(RAVEL_PC_RPATH "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/ravel.pc.in
               ${PROJECT_BINARY_DIR}/ravel.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ravel.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
