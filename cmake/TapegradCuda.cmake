# CUDA is optional. AUTO builds the CUDA backend when a toolkit is found, ON requires one,
# OFF never looks. The result is TAPEGRAD_WITH_CUDA.
set(TAPEGRAD_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set_property(CACHE TAPEGRAD_CUDA PROPERTY STRINGS AUTO ON OFF)

set(TAPEGRAD_WITH_CUDA OFF)
if(NOT TAPEGRAD_CUDA STREQUAL "OFF")
  # nvcc is often only on PATH through /etc/profile.d: look in the usual place too.
  if(NOT DEFINED ENV{CUDACXX} AND NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Hopper (sm_90) machine code plus PTX that newer GPUs can JIT.
    set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(TAPEGRAD_WITH_CUDA ON)
  elseif(TAPEGRAD_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TAPEGRAD_CUDA=ON but no CUDA compiler was found (set CUDACXX)")
  endif()
endif()
message(STATUS "tapegrad: CUDA backend ${TAPEGRAD_WITH_CUDA}")
