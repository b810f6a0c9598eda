// fmt's compiled part, for the WebAssembly build (cmake/TapegradWasm.cmake): Debian ships fmt's
// headers and an x86 libfmt, not fmt's sources. format-inl.h defines its non-template functions;
// the two templates below are the ones fmt's headers declare and leave to that library.
#include <fmt/format-inl.h>

template auto fmt::detail::decimal_point_impl(fmt::detail::locale_ref) -> char;
template auto fmt::detail::thousands_sep_impl(fmt::detail::locale_ref) -> fmt::detail::thousands_sep_result<char>;
