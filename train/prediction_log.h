#pragma once
// An evaluation's answers, one JSON object per example in order (`tapegrad eval --predictions`):
//   {"line":3,"input":["<bos>","b","a"],"target":[null,"a","b"],"predicted":[null,"a","a"],"correct":false}
// "line" when the examples are a file's lines (EvalSet::numbered_by_line), else "index" from 0;
// target and predicted are null where the model is not asked for a token; "correct" is true
// when every scored position is right (positions whose target is an unscored class do not
// count). The file appears whole at commit() (core/io/output_file.h).
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/output_file.h"
#include "data/dataloader.h"
#include "data/vocab.h"

namespace tg::train {

class PredictionLog {
 public:
  PredictionLog(const std::string& path, const data::Vocab& input_vocab, const data::Vocab& output_vocab,
                bool numbered_by_line, std::vector<int64_t> unscored_classes);

  // A batch in the evaluation's order with the model's predicted classes, (B,T) int64.
  void add(const data::Batch& batch, const Tensor& predictions);
  void commit() { file_.commit(); }

 private:
  OutputFile file_;
  const data::Vocab& input_vocab_;
  const data::Vocab& output_vocab_;
  bool numbered_by_line_;
  std::vector<int64_t> unscored_classes_;
  int64_t next_ = 0;  // the next example's index
};

}  // namespace tg::train
