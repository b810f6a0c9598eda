#pragma once
// report.html and metrics.csv in a run directory, rewritten after every checkpoint: the observer
// (train/fit_observer.h) that `tapegrad train` attaches to its trainer.
//
//   train::Trainer trainer(config);
//   trainer.attach(report::run_page_observer(trainer));   // with validation example 0's attention
//   trainer.fit();
//
// A seq2seq run's page has its curves and config, and no attention maps.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "train/attention_snapshot.h"
#include "train/config.h"
#include "train/fit_observer.h"
#include "train/trainer.h"

namespace tg::report {

class RunPageObserver final : public train::FitObserver {
 public:
  // The attention maps of the model as it is at `step`; none when there is nothing to show.
  using AttentionSnapshot = std::function<std::optional<train::AttentionExample>(int64_t step)>;

  // Writes into config.out; `attention` may be empty (no maps on the page).
  explicit RunPageObserver(const train::TrainConfig& config, AttentionSnapshot attention = nullptr);
  void checkpoint_written(int64_t step, const train::MetricsLog& metrics) override;

 private:
  std::string dir_;
  std::string config_json_;
  AttentionSnapshot attention_;
};

// The page of a Trainer's run, with the attention maps of its validation example 0 where its
// task has them (TrainingTask::attention_example).
std::shared_ptr<RunPageObserver> run_page_observer(train::Trainer& trainer);

}  // namespace tg::report
