// Bad-input matrix rows: cli. See bad_input_case.h.
#include "bad_input/bad_input_case.h"

namespace tg::test {

std::vector<BadInputCase> cli_cases() {
  return {};
}

}  // namespace tg::test
