#pragma once
// What an app attaches to a Trainer to write files of its own about a run:
// `tapegrad train` attaches report.html and metrics.csv (report/run_page_observer.h). The
// Trainer itself writes only what resuming needs: the checkpoint and metrics.jsonl.
//
//   class Csv : public FitObserver {
//     void checkpoint_written(int64_t step, const MetricsLog& metrics) override { ... }
//   };
//   trainer.attach(std::make_shared<Csv>());
//
// The observers are called in the order attached, after every checkpoint the trainer writes
// (TrainerOptions::write_files): after each evaluation, at the end of fit(), and when
// stop_requested ends it. An exception from an observer ends fit() with it.
#include <cstdint>

#include "train/metrics_log.h"

namespace tg::train {

class FitObserver {
 public:
  virtual ~FitObserver() = default;
  // The checkpoint of `step` is written; `metrics` holds every record of the run so far (those
  // of metrics.jsonl).
  virtual void checkpoint_written(int64_t step, const MetricsLog& metrics) = 0;
};

}  // namespace tg::train
