# Compiler cache. Every build directory of this checkout shares one ccache store in
# build/ccache, so a file compiled with the same flags in a second preset (ci, then
# gpu-emulator: they differ only in the CUDA include path, which leaves the preprocessed
# source of most files unchanged) is taken from the cache. AUTO uses ccache when it is
# installed, ON requires it, OFF never looks. A launcher given on the command line
# (CMAKE_CXX_COMPILER_LAUNCHER) takes precedence; inside another project (add_subdirectory) it is left alone.
# CCACHE_NOHASHDIR: with -g (the fuzz and asan presets) ccache would otherwise key each object on
# its build directory, and the asan build could not reuse the fuzz build's objects.
# CCACHE_BASEDIR: a unity build compiles files generated in the build directory
# (<build>/<target>.dir/Unity/unity_0_cxx.cxx); with their paths made relative to it, the same
# batch in two presets' build directories is the same compilation, and gpu-emulator takes ci's.
set(TAPEGRAD_CCACHE AUTO CACHE STRING "Compile through ccache: AUTO, ON or OFF")
set_property(CACHE TAPEGRAD_CCACHE PROPERTY STRINGS AUTO ON OFF)

if(PROJECT_IS_TOP_LEVEL AND NOT TAPEGRAD_CCACHE STREQUAL "OFF" AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(TAPEGRAD_CCACHE_PROGRAM ccache)
  if(TAPEGRAD_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
        ${CMAKE_COMMAND} -E env CCACHE_DIR=${PROJECT_SOURCE_DIR}/build/ccache CCACHE_NOHASHDIR=1
        CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
        ${TAPEGRAD_CCACHE_PROGRAM})
  elseif(TAPEGRAD_CCACHE STREQUAL "ON")
    message(FATAL_ERROR "TAPEGRAD_CCACHE=ON but ccache was not found (apt-get install ccache)")
  endif()
endif()
message(STATUS "tapegrad: compiler launcher: ${CMAKE_CXX_COMPILER_LAUNCHER}")
