# install(): the layer libraries, their headers under include/tapegrad/, and a package config
# so that find_package(tapegrad) gives tapegrad::tapegrad (and tapegrad::core, ...).
include(CMakePackageConfigHelpers)

get_property(layers GLOBAL PROPERTY TAPEGRAD_LAYERS)
install(TARGETS ${layers} tapegrad EXPORT tapegradTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY core ops nn optim train data DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tapegrad
        FILES_MATCHING PATTERN "*.h")
install(FILES tapegrad.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tapegrad)
install(EXPORT tapegradTargets NAMESPACE tapegrad:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tapegrad)

configure_package_config_file(cmake/tapegradConfig.cmake.in ${PROJECT_BINARY_DIR}/tapegradConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tapegrad)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tapegradConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tapegradConfig.cmake ${PROJECT_BINARY_DIR}/tapegradConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tapegrad)
