#include "report/run_page_observer.h"

#include <utility>

#include "report/report_page.h"

namespace tg::report {

RunPageObserver::RunPageObserver(const train::TrainConfig& config, AttentionSnapshot attention)
    : dir_(config.out), config_json_(train::to_json(config)), attention_(std::move(attention)) {}

void RunPageObserver::checkpoint_written(int64_t step, const train::MetricsLog& metrics) {
  RunReport run{.name = dir_, .config_json = config_json_, .metrics = metrics, .attention = {}};
  if (attention_) run.attention = attention_(step);
  write_run_report(dir_, run);
}

std::shared_ptr<RunPageObserver> run_page_observer(train::Trainer& trainer) {
  return std::make_shared<RunPageObserver>(
      trainer.config(), [&trainer](int64_t step) { return trainer.task().attention_example(step); });
}

}  // namespace tg::report
