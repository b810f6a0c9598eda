# The WebAssembly build's packages (the wasm preset loads this file through
# CMAKE_PROJECT_TOP_LEVEL_INCLUDES): find_package() cannot take Debian's x86 libraries there, so
# a package whose targets cmake/TapegradWasm.cmake defines is found as those; any other is
# looked for as usual.
function(tapegrad_wasm_package method name)
  set(targets fmt::fmt nlohmann_json::nlohmann_json ZLIB::ZLIB OpenSSL::Crypto)
  list(FILTER targets INCLUDE REGEX "^${name}::")
  if(targets)
    set(${name}_FOUND TRUE PARENT_SCOPE)
  else()
    find_package(${name} ${ARGN} BYPASS_PROVIDER)
  endif()
endfunction()
cmake_language(SET_DEPENDENCY_PROVIDER tapegrad_wasm_package SUPPORTED_METHODS FIND_PACKAGE)
