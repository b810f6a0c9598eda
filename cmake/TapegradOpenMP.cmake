# tapegrad_openmp (tapegrad::openmp): OpenMP for tapegrad's libraries and programs.
#
# With GCC, libgomp is linked statically: libgomp reads its wait policy from the environment in
# its own initialiser, and only when that initialiser is part of the program does
# core/openmp_wait.cpp's earlier constructor get to choose the default first (it says why the
# default matters). TAPEGRAD_OPENMP_STATIC tells the tests which it is. Other compilers (clang
# and its libomp, in the fuzz and asan presets) link their OpenMP runtime as usual.
find_package(OpenMP REQUIRED COMPONENTS CXX)
add_library(tapegrad_openmp INTERFACE)
add_library(tapegrad::openmp ALIAS tapegrad_openmp)
set_target_properties(tapegrad_openmp PROPERTIES EXPORT_NAME openmp)

set(TAPEGRAD_OPENMP_STATIC OFF)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.a
                  OUTPUT_VARIABLE libgomp_static OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(IS_ABSOLUTE "${libgomp_static}" AND EXISTS "${libgomp_static}")
    set(TAPEGRAD_OPENMP_STATIC ON)
  endif()
endif()

if(TAPEGRAD_OPENMP_STATIC)
  find_package(Threads REQUIRED)
  target_compile_options(tapegrad_openmp INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${OpenMP_CXX_FLAGS}>)
  target_link_libraries(tapegrad_openmp INTERFACE ${libgomp_static} Threads::Threads)
else()
  target_link_libraries(tapegrad_openmp INTERFACE OpenMP::OpenMP_CXX)
endif()
