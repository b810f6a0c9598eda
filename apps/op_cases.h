#pragma once
// One gradcheck case per op folder (ops/<op>/): small float64 inputs and a function through
// the op, for `tapegrad gradcheck`. tests/train/cli_test.cpp checks that every folder has one.
#include <functional>
#include <string>
#include <vector>

#include "core/gradcheck.h"

namespace tg::cli {

struct OpCase {
  std::string op;       // the op folder
  std::string tape_op;  // the op that must show on the checked tape (attention is composed of others)
  std::function<std::vector<Tensor>()> inputs;  // fresh inputs; the differentiable ones require grad
  GradcheckFn fn;
  GradcheckOptions options = {};
};

const std::vector<OpCase>& op_cases();

}  // namespace tg::cli
