#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/cuda/cuda_runtime.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "ops/max/max.h"
#include "ops/mul/mul.h"
#include "optim/clip_grad.h"
#include "train/checkpoint.h"
#include "train/fit_loop.h"

namespace tg::train {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The config fields a resumed run may change: they do not alter the steps already taken.
const std::set<std::string> kResumable = {"steps", "eval_every", "log_every", "eval_batches", "out", "ignore_tokens"};

// A data file's hash that a checkpoint from before they were stored lacks, given on --resume
// with the file (train/run_data.h).
bool fills_missing_hash(const FieldDifference& d) {
  return (d.field == "data_sha256" || d.field == "val_data_sha256") && d.a == "\"\"";
}

// "vocab_size (checkpoint 30, now 31), max_len (checkpoint 8, now 9)"
std::string model_differences(const ModelConfig& a, const ModelConfig& b) {
  std::vector<std::string> out;
  const auto compare = [&](const char* field, const auto& x, const auto& y) {
    if (x != y) out.push_back(fmt::format("{} (checkpoint {}, now {})", field, x, y));
  };
  compare("vocab_size", a.vocab_size, b.vocab_size), compare("num_classes", a.num_classes, b.num_classes);
  compare("max_len", a.max_len, b.max_len), compare("d_model", a.d_model, b.d_model);
  compare("heads", a.heads, b.heads), compare("layers", a.layers, b.layers), compare("ff", a.ff, b.ff);
  compare("dropout", a.dropout, b.dropout), compare("causal", a.causal, b.causal);
  compare("arch", a.arch, b.arch), compare("tie_weights", a.tie_weights, b.tie_weights);
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

Trainer::Trainer(const TrainConfig& config, TrainerOptions options)
    : Trainer(config, make_training_task(config), options) {}

Trainer::Trainer(const TrainConfig& config, std::unique_ptr<TrainingTask> task, TrainerOptions options)
    : config_(config), options_(options), task_(std::move(task)) {
  validate(config_);
  device_ = parse_device(config_.device);
  initial_rng_offset_ = default_generator().offset();  // the task seeded it and drew the initial weights
  nn::Module& model = task_->model();
  if (!device_.is_cpu()) model.to_(device_);
  model.set_composed(config_.composed);
  for (auto& [name, t] : model.named_parameters()) params_.push_back({name, t});
  optimizer_ = std::make_unique<AdamW>(weight_decay_groups(params_),
                                       AdamWOptions{.lr = config_.lr, .weight_decay = config_.weight_decay});
  scheduler_ = std::make_unique<Scheduler>(
      *optimizer_, warmup_cosine(config_.lr, config_.warmup, config_.steps, config_.lr * config_.min_lr_ratio));
  if (options_.parallel) {
    if (config_.batch_size < options_.parallel->world_size())
      throw Error("train", fmt::format("--batch-size {} is split across {} ranks: it must be at least the number of "
                                       "ranks", config_.batch_size, options_.parallel->world_size()));
    options_.parallel->attach(params_);
  }
}

std::filesystem::path Trainer::checkpoint_path() const {
  return std::filesystem::path(config_.out) / "checkpoint.safetensors";
}

void check_resume(const std::filesystem::path& file, const Checkpoint& c, const TrainConfig& config,
                  const ModelConfig& model) {
  std::vector<std::string> changed;
  for (const FieldDifference& d : differing_fields(c.config, config))
    if (!kResumable.contains(d.field) && !fills_missing_hash(d))
      changed.push_back(fmt::format("{} (checkpoint {}, now {})", d.field, d.a, d.b));
  if (!changed.empty())
    throw Error("resume", fmt::format("{}: this run's config differs from the checkpoint's in {}; a resumed run may "
                                      "change only steps, eval_every, log_every, eval_batches, out and ignore_tokens",
                                      file.string(), fmt::join(changed, ", ")));
  if (c.model_config != model)
    throw Error("resume", fmt::format("{}: the checkpoint's model does not fit this run's data: {} (the data file "
                                      "changed?)", file.string(), model_differences(c.model_config, model)));
  if (c.step > config.steps)
    throw Error("resume", fmt::format("{}: the checkpoint is at step {}, past this run's steps ({})", file.string(),
                                      c.step, config.steps));
}

void Trainer::resume(const std::filesystem::path& where) {
  const std::filesystem::path file = checkpoint_file(where);
  Checkpoint c = load_checkpoint(file);
  check_resume(file, c, config_, task_->model_config());
  task_->check_resume(file, c);
  if (c.rng_offset < initial_rng_offset_)
    throw Error("resume", fmt::format("{}: rng.offset is {}, before the {} the initial weights already drew",
                                      file.string(), c.rng_offset, initial_rng_offset_));
  try {
    task_->model().load_state_dict(c.model);
    optimizer_->load_state_dict(c.optimizer);
    scheduler_->load_state_dict(c.scheduler);
    task_->set_loader_state(c.loader);
  } catch (const Error& e) {
    throw Error("resume", fmt::format("{}: {}", file.string(), e.what()));
  }
  default_generator().set_state(c.rng_seed, c.rng_offset);
  step_ = c.step;
  last_checkpoint_step_ = c.step;
}

void Trainer::save_checkpoint(const std::filesystem::path& path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  train::save_checkpoint(path, {.config = config_,
                                .model_config = task_->model_config(),
                                .input_vocab = task_->input_vocab(),
                                .output_vocab = task_->output_vocab(),
                                .model = task_->model().state_dict(),
                                .optimizer = optimizer_->state_dict(),
                                .scheduler = scheduler_->state_dict(),
                                .step = step_,
                                .rng_seed = default_generator().seed(),
                                .rng_offset = default_generator().offset(),
                                .loader = task_->loader_state()});
  last_checkpoint_step_ = step_;
}

Trainer::Pass Trainer::forward_backward() {
  Pass p;
  for (int64_t k = 0; k < config_.grad_accum; ++k) {
    const BatchSize batch = task_->next_batch();
    p.tokens += batch.tokens;
    if (options_.parallel) micro_batch_shard(p, batch.rows, k + 1 == config_.grad_accum);
    else micro_batch(p, batch.rows);
  }
  return p;
}

void Trainer::micro_batch(Pass& p, int64_t rows) {
  const auto accum = static_cast<double>(config_.grad_accum);
  const ScoredRows s = task_->forward(0, rows);                // logits (B,T,C)
  const Tensor loss = cross_entropy(s.logits, s.targets);      // mean over scored positions
  loss.backward(config_.grad_accum > 1 ? full({}, 1 / accum, loss.dtype(), loss.device()) : Tensor());
  p.loss += loss.item() / accum;
  NoGradGuard no_grad;
  p.accuracy += data::accuracy(max_with_indices(s.logits, -1).indices, s.targets, data::kIgnoreIndex,
                               task_->unscored_classes());
}

// The whole job's count of scored positions is summed before backward, so that each rank's
// loss (its sum over its rows) can be divided by it; a rank with no rows left in a short last
// batch contributes nothing.
void Trainer::micro_batch_shard(Pass& p, int64_t rows, bool last) {
  DataParallel& parallel = *options_.parallel;
  const auto accum = static_cast<double>(config_.grad_accum);
  const int64_t ranks = parallel.world_size(), r = parallel.rank();
  const int64_t lo = rows * r / ranks, hi = rows * (r + 1) / ranks;
  Tensor loss_sum;
  data::Accuracy acc;
  if (hi > lo) {
    const ScoredRows s = task_->forward(lo, hi);                                       // logits (b,T,C)
    loss_sum = cross_entropy(s.logits, s.targets, {.reduction = Reduction::sum});  // over this rank's positions
    NoGradGuard no_grad;
    acc = data::accuracy(max_with_indices(s.logits, -1).indices, s.targets, data::kIgnoreIndex,
                         task_->unscored_classes());
  }
  double job_loss_sum = loss_sum.defined() ? loss_sum.item() : 0;
  const data::Accuracy job = summed(parallel, acc, job_loss_sum);
  const double scale = 1 / (static_cast<double>(std::max<int64_t>(job.labelled_tokens, 1)) * accum);
  parallel.backward(loss_sum.defined() ? mul(loss_sum, scale) : Tensor(), last);
  p.loss += job_loss_sum * scale;
  p.accuracy += job;
}

StepMetrics Trainer::update() {
  if (step_ >= config_.steps)
    throw Error("train", fmt::format("the run has taken all its {} steps: it can take no more updates", config_.steps));
  const auto start = Clock::now();
  if (options_.parallel)  // this rank's dropout stream for this step (trainer.h)
    default_generator().set_state(config_.seed, ((options_.parallel->rank() + 1ull) << 56) +
                                                    (static_cast<uint64_t>(step_) << 32));
  const data::LoaderState loader_before = task_->loader_state();
  const Generator rng_before = default_generator();
  task_->model().train();
  Pass p = forward_backward();
  StepMetrics m{.step = step_ + 1, .loss = p.loss, .token_accuracy = p.accuracy.token_accuracy(), .tokens = p.tokens};
  m.grad_norm = clip_grad_norm(params_, config_.clip > 0 ? config_.clip : kInfNorm);
  if (!std::isfinite(m.loss) || !std::isfinite(m.grad_norm)) stop_non_finite(m, loader_before, rng_before);
  m.lr = scheduler_->step();
  optimizer_->step();
  optimizer_->zero_grad();
  ++step_;
  if (device_.is_cuda()) cuda_synchronize();  // the step's GPU work is done: ms covers it
  m.ms = ms_since(start);
  return m;
}

void Trainer::stop_non_finite(const StepMetrics& m, data::LoaderState loader, Generator rng) {
  // The same batch and random draws again, now checking every value as it is made.
  optimizer_->zero_grad();
  task_->set_loader_state(loader);
  default_generator().set_state(rng.seed(), rng.offset());
  std::string found = "anomaly mode did not see it again on a second run of the step";
  try {
    AnomalyGuard anomaly;
    forward_backward();
  } catch (const Error& e) {
    found = fmt::format("the first op to produce a non-finite value is '{}' ({})", e.op(), e.what());
  }
  optimizer_->zero_grad();  // back to the state before the step: fit() may be called again
  task_->set_loader_state(loader);
  default_generator().set_state(rng.seed(), rng.offset());
  const std::string what = std::isfinite(m.loss) ? fmt::format("the gradient norm is {}", m.grad_norm)
                                                 : fmt::format("the loss is {}", m.loss);
  const std::string kept = last_checkpoint_step_ > 0
                               ? fmt::format("the last good checkpoint ({}, step {}) is untouched",
                                             checkpoint_path().string(), last_checkpoint_step_)
                               : std::string("no checkpoint had been written");
  throw Error("train", fmt::format("step {}: {}; {}. Training stopped; {}", m.step, what, found, kept));
}

EvalMetrics Trainer::evaluate() {
  EvalMetrics m = task_->evaluate(config_.eval_batches, options_.parallel.get());
  m.step = step_;
  return m;
}

FitResult Trainer::fit(int64_t until) {
  return run_fit_loop(
      config_, options_, until,
      {.step = [this] { return step_; },
       .update = [this] { return update(); },
       .evaluate = [this] { return evaluate(); },
       .after_update =
           [this](bool checkpoint_due) {
             if (options_.parallel && (checkpoint_due || step_ % kCheckParametersEvery == 0))
               options_.parallel->check_parameters_agree(fmt::format("at step {}", step_));
           },
       .save_checkpoint = [this] { save_checkpoint(checkpoint_path()); },
       .observers = observers_,
       .on_step = [this](const StepMetrics& m) { if (on_step) on_step(m); },
       .stop_requested = [this] { return stop_requested && stop_requested(); }});
}

}  // namespace tg::train
