#pragma once
// Examples and datasets: every task in data/ is framed as per-position labelling for an
// encoder. An Example is a sequence of input token ids and a target sequence of the same
// length; target = kIgnoreIndex where nothing is scored. So one model type (an encoder with
// a per-position classifier head) trains on every task:
//
//   reverse  input  3 1 2 <sep> <mask> <mask> <mask>      target  -100 -100 -100 -100 2 1 3
//   char LM  input  t h e _ c                             target  h e _ c a   (with a causal mask)
//   TSV file input  the cat sat                           target  DET NOUN VERB
#include <cstdint>
#include <string>
#include <vector>

namespace tg::data {

// The target value of an unscored position (PyTorch's cross_entropy default).
inline constexpr int64_t kIgnoreIndex = -100;

struct Example {
  std::vector<int64_t> input;   // token ids, length T
  std::vector<int64_t> target;  // label ids or kIgnoreIndex, length T
  bool operator==(const Example&) const = default;
};

// Throws tg::Error("<op>: <what> ...") unless input and target are non-empty, equally long,
// input ids >= 0 and target ids >= 0 or kIgnoreIndex. `what` names the example ("example 7").
void check_example(const Example& example, const char* op, const std::string& what);

// A random-access collection of examples; the DataLoader draws from one.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t index) const = 0;  // 0 <= index < size()
};

// Examples held in memory (synthetic tasks, labelled files). Checks every example.
class ExampleDataset : public Dataset {
 public:
  explicit ExampleDataset(std::vector<Example> examples);
  int64_t size() const override { return static_cast<int64_t>(examples_.size()); }
  Example get(int64_t index) const override;
  const std::vector<Example>& examples() const { return examples_; }

 private:
  std::vector<Example> examples_;
};

}  // namespace tg::data
