# One C++ block of docs/tutorial.md: the block must be EXAMPLE (less its leading comment line),
# followed by a ```text block that is exactly what PROGRAM (EXAMPLE built) prints; and the tutorial
# must have one C++ block per program in EXAMPLES_DIR, so that none goes unchecked.
file(READ ${TUTORIAL} tutorial)
file(READ ${EXAMPLE} example)
string(REGEX REPLACE "^//[^\n]*\n" "" example "${example}")

string(REGEX MATCHALL "```cpp\n" blocks "${tutorial}")
list(LENGTH blocks block_count)
file(GLOB programs ${EXAMPLES_DIR}/*.cpp)
list(LENGTH programs program_count)
if(NOT block_count EQUAL program_count)
  message(FATAL_ERROR "${TUTORIAL} has ${block_count} C++ blocks but ${EXAMPLES_DIR} has ${program_count} programs")
endif()

set(block "```cpp\n${example}```\n\n```text\n")
string(FIND "${tutorial}" "${block}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${TUTORIAL} has no C++ block equal to ${EXAMPLE} followed by a ```text block of its output")
endif()
string(LENGTH "${block}" block_length)
math(EXPR output_at "${at} + ${block_length}")
string(SUBSTRING "${tutorial}" ${output_at} -1 rest)
string(FIND "${rest}" "```" output_end)
string(SUBSTRING "${rest}" 0 ${output_end} expected)

execute_process(COMMAND ${PROGRAM} OUTPUT_VARIABLE actual RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${status}")
endif()
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "${PROGRAM} printed\n${actual}\nbut ${TUTORIAL} shows\n${expected}")
endif()
