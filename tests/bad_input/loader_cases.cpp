// Bad-input matrix rows: loader. See bad_input_case.h.
#include "bad_input/bad_input_case.h"

namespace tg::test {

std::vector<BadInputCase> loader_cases() {
  return {};
}

}  // namespace tg::test
