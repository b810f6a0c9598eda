#pragma once
// The lab's training (its Train view and window.tapegrad.train): a tiny model trained in the
// page by the library's own Trainer, one update at a time so that the page draws between them,
// with the weights of the steps the page keeps, to look back at.
//
//   LabTraining t({{"task", "reverse"}, {"steps", 30}, {"d-model", 16}});  // tapegrad train's flags
//   t.describe();        // the run: its config, the parameters' names and shapes, the classes
//   t.updates(5);        // the next 5 updates' metrics, as metrics.jsonl has them (fewer at the end)
//   t.keep();            // keeps the weights of the step reached (step 0's are kept from the start)
//   t.snapshot(s, "p");  // validation example 0 through the model of kept step s (below)
//   t.record(s);         // example 0's forward and backward then, as tapegrad explore records it
//   t.evaluate();        // the validation set's loss, token accuracy and exact match now
//
// The flags are `tapegrad train`'s without their dashes ("d-model", "steps", "seed"), with its
// defaults (a fresh run's warmup scaled to its steps): the synthetic tasks and the built-in
// grammar corpus, arch encoder or gpt, on the CPU, as `--threads 1` trains them. Nothing is
// written anywhere.
//
// A snapshot (JSON): {"step", "tokens": [input token], "loss": example 0's, "prediction": each
// position's token, target and prediction (explore/model_example.h), "attention": {"heads",
// "layers": [per layer: (NH,T,T) row-major]}, and with a parameter named, "gradient": {"name",
// "shape", "values"}: that parameter's gradient of example 0's loss}.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/example.h"
#include "train/trainer.h"

namespace tg::lab {

class LabTraining {
 public:
  explicit LabTraining(const nlohmann::json& flags);

  nlohmann::json describe();
  nlohmann::json updates(int64_t count);
  // Throws tg::Error("lab", ...) once kMaxKept steps are kept.
  void keep();
  // Throws tg::Error("lab", ...) for a step neither kept nor reached, or a parameter the model has not.
  nlohmann::json snapshot(int64_t step, const std::string& gradient = "");
  nlohmann::json record(int64_t step);
  nlohmann::json evaluate();

  static constexpr size_t kMaxKept = 512;

 private:
  std::vector<std::string> input_tokens(const data::Example& example) const;
  std::vector<std::string> class_names() const;
  // The model with the weights of step `step` (reached or kept) while `look` runs, then as it was.
  template <class Look> nlohmann::json with_weights_of(int64_t step, Look look);

  std::unique_ptr<train::Trainer> trainer_;
  std::map<int64_t, NamedTensors> kept_;  // step -> the model's state_dict then (copies)
};

// A TrainConfig from `tapegrad train`'s flags as JSON; throws tg::Error("lab", ...) naming a
// flag the page cannot take (a data file, a device, an unknown flag) and tg::Error("config", ...)
// naming one out of range.
train::TrainConfig config_from_flags(const nlohmann::json& flags);

}  // namespace tg::lab
