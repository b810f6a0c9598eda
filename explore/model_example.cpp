#include "explore/model_example.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/tape.h"
#include "core/tape_capture.h"
#include "data/dataloader.h"
#include "explore/attention_maps.h"
#include "explore/recording.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "ops/softmax/softmax.h"

namespace tg::explore {

namespace {

// Evaluation mode on the composed path while it lives; the modes the model had afterwards.
class TeachingMode {
 public:
  explicit TeachingMode(nn::Module& model)
      : model_(model), training_(model.is_training()), composed_(model.is_composed()) {
    model_.eval();
    model_.set_composed(true);
  }
  ~TeachingMode() {
    model_.train(training_);
    model_.set_composed(composed_);
    model_.zero_grad();
  }
  TeachingMode(const TeachingMode&) = delete;
  TeachingMode& operator=(const TeachingMode&) = delete;

 private:
  nn::Module& model_;
  bool training_, composed_;
};

// Hooks removed when it ends: a HookHandle keeps its hook until remove(), and the model lives on.
struct RemovedAtEnd {
  std::vector<HookHandle> hooks;
  RemovedAtEnd() = default;
  RemovedAtEnd(const RemovedAtEnd&) = delete;
  RemovedAtEnd& operator=(const RemovedAtEnd&) = delete;
  ~RemovedAtEnd() {
    for (HookHandle& h : hooks) h.remove();
  }
};

}  // namespace

nlohmann::json record_model_example(train::TransformerModel& model, const data::Example& example,
                                    const std::vector<std::string>& tokens, const std::vector<std::string>& classes,
                                    Graphs graphs) {
  TeachingMode mode(model);
  LabelledWeights weights;  // each attention's (B,NH,T,S) weights, by its module's name
  RemovedAtEnd hooks;
  for (const auto& [name, module] : model.named_modules())
    if (module->type() == "MultiHeadAttention")
      hooks.hooks.push_back(module->register_forward_hook(
          [&weights, name = name](const nn::Module&, const TensorList&, const TensorList& out) {
            weights.emplace_back(name, out.at(1));
          }));
  data::Batch batch = data::collate({example});
  batch.inputs.set_name("tokens");  // (1,T) ids: their tokens label the attention maps
  if (batch.padding_mask.defined()) batch.padding_mask.set_name("padding_mask");
  batch.targets.set_name("targets");
  tape().clear();
  TapeCapture capture;
  const Tensor logits = model.forward(batch.inputs, batch.padding_mask);  // (1,T,C)
  const Tensor loss = cross_entropy(logits, batch.targets).set_name("loss");
  nlohmann::json rec = record(capture, loss, graphs);
  rec["attention"] = attention_maps(weights, tokens);
  rec["prediction"] = prediction_json(logits, example, tokens, classes);
  return rec;
}

nlohmann::json prediction_json(const Tensor& logits, const data::Example& example,
                               const std::vector<std::string>& tokens, const std::vector<std::string>& classes) {
  const size_t C = classes.size();
  if (logits.dim() != 3 || logits.size(0) != 1 || logits.size(1) != static_cast<int64_t>(tokens.size()) ||
      logits.size(2) != static_cast<int64_t>(C))
    throw Error("explore", fmt::format("prediction: logits {} do not fit {} tokens and {} classes", logits.describe(),
                                       tokens.size(), C));
  const std::vector<float> p = softmax(logits.detach(), -1).to_vector<float>();
  nlohmann::json positions = nlohmann::json::array();
  for (size_t t = 0; t < tokens.size(); ++t) {
    const float* row = p.data() + t * C;
    const size_t best = static_cast<size_t>(std::max_element(row, row + C) - row);
    const int64_t target = example.target[t];
    const bool scored = target != data::kIgnoreIndex;
    positions.push_back({{"token", tokens[t]},
                         {"target", scored ? nlohmann::json(classes.at(target)) : nlohmann::json()},
                         {"predicted", classes[best]},
                         {"p_predicted", row[best]},
                         {"p_target", scored ? nlohmann::json(row[target]) : nlohmann::json()}});
  }
  return positions;
}

}  // namespace tg::explore
