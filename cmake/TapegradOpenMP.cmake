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

# tapegrad_parallel_region_count: counts the parallel regions a program opens on more than one
# thread (bench/parallel_region_count.h), for the training-step benchmark and the tests; not part
# of the library. An object library, so that its __wrap_GOMP_parallel is linked wherever the
# libraries' calls are redirected to it.
add_library(tapegrad_parallel_region_count OBJECT ${PROJECT_SOURCE_DIR}/bench/parallel_region_count.cpp)
target_include_directories(tapegrad_parallel_region_count PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_features(tapegrad_parallel_region_count PUBLIC cxx_std_20)
target_compile_options(tapegrad_parallel_region_count PRIVATE -Wall -Wextra $<$<BOOL:${TAPEGRAD_WERROR}>:-Werror>)
if(TAPEGRAD_OPENMP_STATIC)
  target_compile_definitions(tapegrad_parallel_region_count PRIVATE TAPEGRAD_COUNT_PARALLEL_REGIONS=1)
  target_link_options(tapegrad_parallel_region_count INTERFACE "LINKER:--wrap=GOMP_parallel")
else()
  target_compile_definitions(tapegrad_parallel_region_count PRIVATE TAPEGRAD_COUNT_PARALLEL_REGIONS=0)
endif()
