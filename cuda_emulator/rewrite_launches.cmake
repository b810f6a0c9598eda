# tapegrad_rewrite_launches(<source> <copy>): writes <copy>, which is <source> with every kernel
# launch `kernel<<<config>>>(args)` turned into
#   ::tg::emu::launch("kernel", [&](auto... a) { kernel(a...); }, config)(args)
# so the host compiler can build it. The kernel expression is a name with at most one template
# argument list or call, which is what tapegrad's launches use; any other launch fails here.
function(tapegrad_rewrite_launches source copy)
  file(READ ${source} text)
  set(kernel "[A-Za-z_][A-Za-z_0-9]*(<[A-Za-z_0-9]*>|\\([A-Za-z_0-9]*\\))?")
  string(REGEX REPLACE "(${kernel})<<<([^>]*)>>>\\("
         "::tg::emu::launch(\"\\1\", [&](auto... tg_emu_args) { \\1(tg_emu_args...); }, \\3)(" text "${text}")
  if(text MATCHES "<<<[^>]*>>>\\(")
    message(FATAL_ERROR "${source}: a kernel launch the CUDA emulator cannot rewrite: ${CMAKE_MATCH_0}")
  endif()
  file(WRITE ${copy}.new "${text}")
  file(COPY_FILE ${copy}.new ${copy} ONLY_IF_DIFFERENT)
  file(REMOVE ${copy}.new)
endfunction()
