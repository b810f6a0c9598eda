# install(): the layer libraries, their headers under include/tapegrad/, and a package config
# so that find_package(tapegrad) gives tapegrad::tapegrad (and tapegrad::core, ...).
include(CMakePackageConfigHelpers)

get_property(layers GLOBAL PROPERTY TAPEGRAD_LAYERS)
install(TARGETS ${layers} tapegrad tapegrad_openmp EXPORT tapegradTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY core ops nn optim train data lessons DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tapegrad
        FILES_MATCHING PATTERN "*.h")
install(FILES tapegrad.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tapegrad)
install(EXPORT tapegradTargets NAMESPACE tapegrad:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tapegrad)

# CUDA: the layers link CUDA::cudart (cuBLAS is opened at run time, ops/matmul/cublas_library.h
# says why); the installed headers include no CUDA header. So a consumer needs that library to
# link, but no CUDA toolkit to configure: the package config defines each such target the
# consumer lacks from the file this build linked (TAPEGRAD_CUDA_TARGETS, one
# tapegrad_cuda_library() call each).
set(TAPEGRAD_CUDA_TARGETS "")
if(TAPEGRAD_WITH_CUDA AND NOT TAPEGRAD_CUDA_EMULATOR)
  set(pending CUDA::cudart)
  set(seen "")
  while(pending)
    list(POP_FRONT pending lib)
    if(lib IN_LIST seen OR NOT TARGET ${lib})
      continue()
    endif()
    list(APPEND seen ${lib})
    get_target_property(location ${lib} IMPORTED_LOCATION)
    get_target_property(links ${lib} INTERFACE_LINK_LIBRARIES)
    set(cuda_links "")
    foreach(link IN LISTS links)
      if(link MATCHES "^CUDA::")
        list(APPEND cuda_links ${link})
        list(APPEND pending ${link})
      endif()
    endforeach()
    list(JOIN cuda_links " " cuda_links)
    string(APPEND TAPEGRAD_CUDA_TARGETS "tapegrad_cuda_library(${lib} \"${location}\" ${cuda_links})\n")
  endwhile()
endif()

configure_package_config_file(cmake/tapegradConfig.cmake.in ${PROJECT_BINARY_DIR}/tapegradConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tapegrad)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tapegradConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tapegradConfig.cmake ${PROJECT_BINARY_DIR}/tapegradConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tapegrad)
