#pragma once
// tg::Error: every user-facing failure. The message always starts with the op's name,
// then says which argument is wrong and prints the shapes:
//   matmul: inner dimensions differ: a (2,3,4) @ b (5,6)
#include <stdexcept>
#include <string>

namespace tg {

class Error : public std::runtime_error {
 public:
  Error(const std::string& op, const std::string& what)
      : std::runtime_error(op + ": " + what), op_(op) {}
  const std::string& op() const { return op_; }

 private:
  std::string op_;
};

}  // namespace tg
