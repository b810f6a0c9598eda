// Bad-input matrix rows: library. See bad_input_case.h.
#include "bad_input/bad_input_case.h"

namespace tg::test {

std::vector<BadInputCase> library_cases() {
  return {};
}

}  // namespace tg::test
