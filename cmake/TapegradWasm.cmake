# The WebAssembly build (the wasm preset: Debian's Emscripten), for the live lab (lab/): the
# library's own sources compiled for the browser, on one thread, without OpenMP or CUDA.
#
# Left out, with what they need that the browser has not (the three functions its training's task
# code could reach are errors in lab/no_files.cpp; its optimizer's openmp_update_finished has
# nothing to do on one thread, lab/one_thread.cpp):
#   core/io/safetensors.cpp      zlib's crc32 (safetensors files)
#   core/io/output_directory.cpp renameat2 (run directories)
#   core/openmp_wait.cpp         libgomp's wait policy
#   data/bpe_file.cpp            OpenSSL's SHA-256 (token id files)
#   train/run_data.cpp           OpenSSL's SHA-256 (a run's data files)
set(TAPEGRAD_WASM_EXCLUDE
    "/(core/io/safetensors|core/io/output_directory|core/openmp_wait|data/bpe_file|train/run_data)[.]cpp$")
# Emscripten's JavaScript optimiser, run when linking, needs Debian's acorn (node-acorn), which
# the node on PATH may not look for.
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
set(TAPEGRAD_WITH_MPI OFF)
set(TAPEGRAD_WITH_NCCL OFF)

# The packages find_package() gives here (cmake/TapegradWasmPackages.cmake). Debian's headers go
# in through a folder holding only links to them: all of /usr/include would shadow Emscripten's libc.
set(header_links ${CMAKE_BINARY_DIR}/header_links)
file(MAKE_DIRECTORY ${header_links})
file(CREATE_LINK /usr/include/fmt ${header_links}/fmt SYMBOLIC)
file(CREATE_LINK /usr/include/nlohmann ${header_links}/nlohmann SYMBOLIC)
add_library(tapegrad_wasm_fmt STATIC ${PROJECT_SOURCE_DIR}/lab/fmt_library.cpp)
target_include_directories(tapegrad_wasm_fmt SYSTEM PUBLIC ${header_links})
add_library(fmt::fmt ALIAS tapegrad_wasm_fmt)
add_library(tapegrad_wasm_json INTERFACE)
target_include_directories(tapegrad_wasm_json SYSTEM INTERFACE ${header_links})
add_library(nlohmann_json::nlohmann_json ALIAS tapegrad_wasm_json)
add_library(tapegrad_wasm_none INTERFACE)  # zlib and OpenSSL: their callers are left out (above)
add_library(ZLIB::ZLIB ALIAS tapegrad_wasm_none)
add_library(OpenSSL::Crypto ALIAS tapegrad_wasm_none)

# tapegrad_openmp: no OpenMP here; lab/serial_openmp/omp.h answers the kernels' calls. Without
# it the pragmas are ignored, and what only their clauses read looks unused (the native builds warn).
add_library(tapegrad_openmp INTERFACE)
target_include_directories(tapegrad_openmp INTERFACE ${PROJECT_SOURCE_DIR}/lab/serial_openmp)
target_compile_options(tapegrad_openmp INTERFACE -Wno-unknown-pragmas -Wno-unused-parameter -Wno-unused-variable
                       -Wno-unused-but-set-variable -Wno-unused-function)
