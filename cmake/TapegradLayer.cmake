# tapegrad_add_layer(<name> [DEPENDS <targets>...])
#
# One library per top-level folder (core, ops, nn, optim, train): target tapegrad_<name>,
# alias tapegrad::<name>. Its sources are the folder's *.cpp files (recursively) and, when the
# CUDA backend is built, its *.cu files; files ending in _nocuda.cpp stand in for the CUDA
# ones otherwise. A layer with no sources yet is an INTERFACE library. The WebAssembly build
# leaves out the files cmake/TapegradWasm.cmake lists.
function(tapegrad_add_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPENDS")
  file(GLOB_RECURSE cpp CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  file(GLOB_RECURSE cu CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cu)
  file(GLOB_RECURSE nocuda CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_nocuda.cpp)
  if(EMSCRIPTEN)
    list(FILTER cpp EXCLUDE REGEX "${TAPEGRAD_WASM_EXCLUDE}")
  endif()
  if(TAPEGRAD_WITH_CUDA)
    list(REMOVE_ITEM cpp ${nocuda})
    if(NOT TAPEGRAD_CUDA_EMULATOR)  # the emulator adds its own copies of the .cu files below
      list(APPEND cpp ${cu})
    endif()
  endif()

  set(target tapegrad_${name})
  if(cpp)
    add_library(${target} ${cpp})
    set(scope PUBLIC)
    target_compile_features(${target} PUBLIC cxx_std_20)
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    # -fno-math-errno: the library never reads errno, and without it std::sqrt keeps a scalar
    # call for errno's sake, so loops over it (AdamW, layer_norm) do not vectorise.
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -fno-math-errno $<$<BOOL:${TAPEGRAD_WERROR}>:-Werror>>)
    if(TAPEGRAD_CUDA_EMULATOR)
      tapegrad_emulate_cuda_sources(${target} ${CMAKE_CURRENT_SOURCE_DIR} emulated)
      target_sources(${target} PRIVATE ${emulated})
    elseif(TAPEGRAD_WITH_CUDA)
      # CMake 3.25 does not know CUDA 13's C++20 dialect: ask nvcc directly.
      # .cu files must not include fmt (nvcc's host pass cannot compile it).
      target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr --extended-lambda -Xcompiler=-Wall,-Wextra
          $<$<BOOL:${TAPEGRAD_WERROR}>:-Werror=all-warnings>>)
    endif()
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  endif()
  add_library(tapegrad::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target} ${scope}
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tapegrad>)
  target_link_libraries(${target} ${scope} ${ARG_DEPENDS})
  set_property(GLOBAL APPEND PROPERTY TAPEGRAD_LAYERS ${target})
endfunction()
