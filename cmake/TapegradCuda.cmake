# CUDA is optional. AUTO builds the CUDA backend when a toolkit is found, ON requires one,
# OFF never looks. EMULATE builds the backend's .cu files with the host compiler against the
# CUDA emulator (cuda_emulator/), so the GPU code and its tests run on a machine without a GPU.
# The results are TAPEGRAD_WITH_CUDA and TAPEGRAD_CUDA_EMULATOR.
set(TAPEGRAD_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON, OFF or EMULATE")
set_property(CACHE TAPEGRAD_CUDA PROPERTY STRINGS AUTO ON OFF EMULATE)

set(TAPEGRAD_WITH_CUDA OFF)
set(TAPEGRAD_CUDA_EMULATOR OFF)
if(TAPEGRAD_CUDA STREQUAL "EMULATE")
  set(TAPEGRAD_WITH_CUDA ON)
  set(TAPEGRAD_CUDA_EMULATOR ON)
  add_subdirectory(cuda_emulator)
elseif(NOT TAPEGRAD_CUDA STREQUAL "OFF")
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
message(STATUS "tapegrad: CUDA backend ${TAPEGRAD_WITH_CUDA} (emulated on the CPU: ${TAPEGRAD_CUDA_EMULATOR})")
