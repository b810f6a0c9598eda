# tapegrad_embed_files(<target> HEADER <header> NAMESPACE <ns> FILES <name>=<path>...)
# Compiles files into <target>: each becomes `std::string_view <name>()` in namespace <ns>,
# declared by the layer in <header> (an include path such as "train/report_page/assets.h").
# The source is generated at build time by cmake/embed_files.cmake and regenerated when a file
# changes. Used for the pages' scripts (Chart.js, KaTeX and our own) and tapegrad_model.py.
set(TAPEGRAD_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)

function(tapegrad_embed_files target)
  cmake_parse_arguments(arg "" "HEADER;NAMESPACE" "FILES" ${ARGN})
  string(MAKE_C_IDENTIFIER "${arg_HEADER}" stem)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${stem}.cpp)
  set(paths ${arg_FILES})
  list(TRANSFORM paths REPLACE "^[a-z_]+=" "")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DHEADER=${arg_HEADER} -DNAMESPACE=${arg_NAMESPACE}
            "-DFILES=${arg_FILES}" -P ${TAPEGRAD_EMBED_SCRIPT}
    DEPENDS ${paths} ${TAPEGRAD_EMBED_SCRIPT}
    COMMENT "Compiling in ${paths}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
