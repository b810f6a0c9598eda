# NCCL is optional and reduces gradients that live on a GPU (dist/nccl.cpp). AUTO uses it when
# the real CUDA backend is built (not the emulator), MPI is found (the NCCL communicator is set
# up over MPI) and both nccl.h and libnccl are found (beside the CUDA toolkit, or under
# NCCL_ROOT); ON requires all of that; OFF never looks. The result is TAPEGRAD_WITH_NCCL and,
# with it, the imported target tapegrad_nccl. Without NCCL, gradients on a GPU are reduced by
# MPI through host memory.
set(TAPEGRAD_NCCL AUTO CACHE STRING "Reduce gradients on GPUs with NCCL (dist/): AUTO, ON or OFF")
set_property(CACHE TAPEGRAD_NCCL PROPERTY STRINGS AUTO ON OFF)

set(TAPEGRAD_WITH_NCCL OFF)
if(NOT TAPEGRAD_NCCL STREQUAL "OFF")
  set(nccl_missing "")
  if(NOT TAPEGRAD_WITH_CUDA OR TAPEGRAD_CUDA_EMULATOR)
    set(nccl_missing "the real CUDA backend (TAPEGRAD_CUDA=AUTO or ON with a toolkit, not EMULATE)")
  elseif(NOT TAPEGRAD_WITH_MPI)
    set(nccl_missing "MPI (TAPEGRAD_MPI)")
  else()
    find_path(TAPEGRAD_NCCL_INCLUDE_DIR nccl.h HINTS ${NCCL_ROOT}/include $ENV{NCCL_ROOT}/include
              ${CUDAToolkit_INCLUDE_DIRS})
    find_library(TAPEGRAD_NCCL_LIBRARY nccl HINTS ${NCCL_ROOT}/lib $ENV{NCCL_ROOT}/lib ${CUDAToolkit_LIBRARY_DIR})
    if(NOT TAPEGRAD_NCCL_INCLUDE_DIR OR NOT TAPEGRAD_NCCL_LIBRARY)
      set(nccl_missing "nccl.h and libnccl (found: ${TAPEGRAD_NCCL_INCLUDE_DIR}, ${TAPEGRAD_NCCL_LIBRARY}; set NCCL_ROOT)")
    endif()
  endif()
  if(nccl_missing STREQUAL "")
    set(TAPEGRAD_WITH_NCCL ON)
    add_library(tapegrad_nccl UNKNOWN IMPORTED)
    set_target_properties(tapegrad_nccl PROPERTIES IMPORTED_LOCATION ${TAPEGRAD_NCCL_LIBRARY}
                          INTERFACE_INCLUDE_DIRECTORIES ${TAPEGRAD_NCCL_INCLUDE_DIR})
  elseif(TAPEGRAD_NCCL STREQUAL "ON")
    message(FATAL_ERROR "TAPEGRAD_NCCL=ON, but NCCL needs ${nccl_missing}")
  endif()
endif()
message(STATUS "tapegrad: NCCL for gradients on GPUs ${TAPEGRAD_WITH_NCCL}")
