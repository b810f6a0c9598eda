#include "data/example.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::data {

void check_example(const Example& example, const char* op, const std::string& what) {
  if (example.input.empty()) throw Error(op, what + " is empty");
  if (example.input.size() != example.target.size())
    throw Error(op, fmt::format("{} has {} input tokens but {} targets", what, example.input.size(),
                                example.target.size()));
  for (size_t t = 0; t < example.input.size(); ++t) {
    if (example.input[t] < 0)
      throw Error(op, fmt::format("{} has a negative input id {} at position {}", what, example.input[t], t));
    if (example.target[t] < 0 && example.target[t] != kIgnoreIndex)
      throw Error(op, fmt::format("{} has a negative target id {} at position {} (only {} means unscored)", what,
                                  example.target[t], t, kIgnoreIndex));
  }
}

ExampleDataset::ExampleDataset(std::vector<Example> examples) : examples_(std::move(examples)) {
  for (size_t i = 0; i < examples_.size(); ++i)
    check_example(examples_[i], "ExampleDataset", fmt::format("example {}", i));
}

Example ExampleDataset::get(int64_t index) const {
  if (index < 0 || index >= size())
    throw Error("ExampleDataset", fmt::format("index {} is out of range for {} examples", index, size()));
  return examples_[index];
}

}  // namespace tg::data
