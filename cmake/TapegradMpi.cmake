# MPI is optional. AUTO builds data-parallel training (dist/, the tapegrad_dist library) when
# FindMPI finds an MPI (Debian: libopenmpi-dev openmpi-bin), ON requires one, OFF never looks.
# The result is TAPEGRAD_WITH_MPI; without it everything else builds and runs as one process.
set(TAPEGRAD_MPI AUTO CACHE STRING "Build data-parallel training on MPI (dist/): AUTO, ON or OFF")
set_property(CACHE TAPEGRAD_MPI PROPERTY STRINGS AUTO ON OFF)

set(TAPEGRAD_WITH_MPI OFF)
if(NOT TAPEGRAD_MPI STREQUAL "OFF")
  if(TAPEGRAD_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS CXX)
  else()
    find_package(MPI COMPONENTS CXX)
  endif()
  if(MPI_CXX_FOUND)
    set(TAPEGRAD_WITH_MPI ON)
  endif()
endif()
message(STATUS "tapegrad: data-parallel training on MPI ${TAPEGRAD_WITH_MPI}")
