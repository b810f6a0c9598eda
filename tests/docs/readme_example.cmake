# The README's C++ example must be examples/worked_example.cpp (less its leading comment),
# so the example users copy is the one CI compiles and runs.
file(READ ${README} readme)
string(REGEX MATCH "```cpp\n(.*)```\n\nUse it from" block "${readme}")
set(snippet "${CMAKE_MATCH_1}")
file(READ ${EXAMPLE} example)
string(REGEX REPLACE "^//[^\n]*\n" "" example "${example}")
if(NOT snippet STREQUAL example)
  message(FATAL_ERROR "README.md's first C++ example differs from ${EXAMPLE}: update one from the other")
endif()
