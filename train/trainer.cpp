#include "train/trainer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/cuda/cuda_runtime.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "ops/contiguous/contiguous.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "ops/max/max.h"
#include "ops/mul/mul.h"
#include "ops/slice/slice.h"
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

// Rows [lo, hi) of a batch.
data::Batch rows(const data::Batch& b, int64_t lo, int64_t hi) {
  const auto take = [&](const Tensor& t) { return contiguous(slice(t, 0, lo, hi)); };
  return {.inputs = take(b.inputs), .targets = take(b.targets), .padding_mask = take(b.padding_mask),
          .lengths = std::vector<int64_t>(b.lengths.begin() + lo, b.lengths.begin() + hi)};
}

// `acc` and `value` summed over the ranks.
data::Accuracy summed(DataParallel& parallel, const data::Accuracy& acc, double& value) {
  std::array<double, 6> v = {value,
                             static_cast<double>(acc.correct_tokens),
                             static_cast<double>(acc.scored_tokens),
                             static_cast<double>(acc.correct_sequences),
                             static_cast<double>(acc.scored_sequences),
                             static_cast<double>(acc.labelled_tokens)};
  parallel.sum(v);
  value = v[0];
  return {.correct_tokens = static_cast<int64_t>(v[1]), .scored_tokens = static_cast<int64_t>(v[2]),
          .correct_sequences = static_cast<int64_t>(v[3]), .scored_sequences = static_cast<int64_t>(v[4]),
          .labelled_tokens = static_cast<int64_t>(v[5])};
}

}  // namespace

EvalMetrics evaluate(TransformerModel& model, data::DataLoader& loader, const EvalOptions& options) {
  const auto start = Clock::now();
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  int64_t batches = loader.batches_per_epoch();
  if (options.max_batches > 0) batches = std::min(batches, options.max_batches);
  double loss_sum = 0;
  data::Accuracy acc;
  const int64_t first = options.parallel ? options.parallel->rank() : 0;
  const int64_t stride = options.parallel ? options.parallel->world_size() : 1;
  for (int64_t i = first; i < batches; i += stride) {
    data::Batch b = loader.batch(0, i);
    Tensor logits = model.forward(b.inputs, b.padding_mask);  // (B,T,C)
    loss_sum += cross_entropy(logits, b.targets, {.reduction = Reduction::sum}).item();
    const Tensor predictions = max_with_indices(logits, -1).indices;  // (B,T)
    acc += data::accuracy(predictions, b.targets, data::kIgnoreIndex, options.unscored_classes);
    if (options.on_batch) options.on_batch(b, predictions);
  }
  if (options.parallel) acc = summed(*options.parallel, acc, loss_sum);
  model.train(was_training);
  return {.loss = loss_sum / static_cast<double>(std::max<int64_t>(acc.labelled_tokens, 1)),
          .token_accuracy = acc.token_accuracy(),
          .exact_match = acc.exact_match(),
          .sequences = acc.scored_sequences,
          .ms = ms_since(start),
          .scored_tokens = acc.scored_tokens};
}

Trainer::Trainer(const TrainConfig& config, TrainerOptions options)
    : Trainer(config, make_task_data(config), options) {}

Trainer::Trainer(const TrainConfig& config, TaskData data, TrainerOptions options)
    : config_(config), options_(options), data_(std::move(data)) {
  validate(config_);
  device_ = parse_device(config_.device);
  manual_seed(config_.seed);  // the parameters' initial values, then dropout, draw from it
  model_ = std::make_unique<TransformerModel>(model_config(config_, data_));
  initial_rng_offset_ = default_generator().offset();
  if (!device_.is_cpu()) model_->to_(device_);
  model_->set_composed(config_.composed);
  for (auto& [name, t] : model_->named_parameters()) params_.push_back({name, t});
  optimizer_ = std::make_unique<AdamW>(weight_decay_groups(params_),
                                       AdamWOptions{.lr = config_.lr, .weight_decay = config_.weight_decay});
  scheduler_ = std::make_unique<Scheduler>(
      *optimizer_, warmup_cosine(config_.lr, config_.warmup, config_.steps, config_.lr * config_.min_lr_ratio));
  train_loader_ = std::make_unique<data::DataLoader>(
      data_.train, data::DataLoaderOptions{.batch_size = config_.batch_size, .shuffle = data_.shuffle,
                                           .seed = config_.seed, .device = device_});
  val_loader_ = std::make_unique<data::DataLoader>(
      data_.val, data::DataLoaderOptions{.batch_size = config_.batch_size, .shuffle = false, .device = device_});
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
  check_resume(file, c, config_, model_->config);
  // The loader has read step * grad_accum batches since the start of the run. (The synthetic
  // tasks size their training set to the run's steps, so a longer run's epochs are longer.)
  const int64_t batches_read = c.step * config_.grad_accum, per_epoch = train_loader_->batches_per_epoch();
  const data::LoaderState expected{batches_read / per_epoch, batches_read % per_epoch};
  const bool same_epochs = c.config.steps == config_.steps || config_.task == "lm" || config_.task == "file";
  if (same_epochs && (c.loader.epoch != expected.epoch || c.loader.batch != expected.batch))
    throw Error("resume", fmt::format("{}: the loader is at epoch {}, batch {}, but {} steps of {} batches end at "
                                      "epoch {}, batch {} ({} batches an epoch)", file.string(), c.loader.epoch,
                                      c.loader.batch, c.step, config_.grad_accum, expected.epoch, expected.batch,
                                      per_epoch));
  if (c.rng_offset < initial_rng_offset_)
    throw Error("resume", fmt::format("{}: rng.offset is {}, before the {} the initial weights already drew",
                                      file.string(), c.rng_offset, initial_rng_offset_));
  try {
    model_->load_state_dict(c.model);
    optimizer_->load_state_dict(c.optimizer);
    scheduler_->load_state_dict(c.scheduler);
    train_loader_->set_state(c.loader);
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
                                .model_config = model_->config,
                                .input_vocab = data_.input_vocab,
                                .output_vocab = data_.output_vocab,
                                .model = model_->state_dict(),
                                .optimizer = optimizer_->state_dict(),
                                .scheduler = scheduler_->state_dict(),
                                .step = step_,
                                .rng_seed = default_generator().seed(),
                                .rng_offset = default_generator().offset(),
                                .loader = train_loader_->state()});
  last_checkpoint_step_ = step_;
}

Trainer::Pass Trainer::forward_backward() {
  if (options_.parallel) return forward_backward_shard();
  Pass p;
  const auto accum = static_cast<double>(config_.grad_accum);
  for (int64_t k = 0; k < config_.grad_accum; ++k) {
    data::Batch b = train_loader_->next();
    Tensor logits = model_->forward(b.inputs, b.padding_mask);  // (B,T,C)
    Tensor loss = cross_entropy(logits, b.targets);             // mean over scored positions
    loss.backward(config_.grad_accum > 1 ? full({}, 1 / accum, loss.dtype(), loss.device()) : Tensor());
    p.loss += loss.item() / accum;
    NoGradGuard no_grad;
    p.accuracy += data::accuracy(max_with_indices(logits, -1).indices, b.targets, data::kIgnoreIndex,
                                 data_.unscored_classes);
    for (int64_t len : b.lengths) p.tokens += len;
  }
  return p;
}

// The whole job's count of scored positions is summed before backward, so that each rank's
// loss (its sum over its rows) can be divided by it; a rank with no rows left in a short last
// batch contributes nothing.
Trainer::Pass Trainer::forward_backward_shard() {
  DataParallel& parallel = *options_.parallel;
  Pass p;
  const auto accum = static_cast<double>(config_.grad_accum);
  for (int64_t k = 0; k < config_.grad_accum; ++k) {
    const data::Batch global = train_loader_->next();
    for (int64_t len : global.lengths) p.tokens += len;
    const auto size = static_cast<int64_t>(global.lengths.size());
    const int64_t ranks = parallel.world_size(), r = parallel.rank();
    const data::Batch b = rows(global, size * r / ranks, size * (r + 1) / ranks);
    Tensor loss_sum;
    data::Accuracy acc;
    if (!b.lengths.empty()) {
      Tensor logits = model_->forward(b.inputs, b.padding_mask);                // (b,T,C)
      loss_sum = cross_entropy(logits, b.targets, {.reduction = Reduction::sum});  // over this rank's positions
      NoGradGuard no_grad;
      acc = data::accuracy(max_with_indices(logits, -1).indices, b.targets, data::kIgnoreIndex,
                           data_.unscored_classes);
    }
    double job_loss_sum = loss_sum.defined() ? loss_sum.item() : 0;
    const data::Accuracy job = summed(parallel, acc, job_loss_sum);
    const double scale = 1 / (static_cast<double>(std::max<int64_t>(job.labelled_tokens, 1)) * accum);
    parallel.backward(loss_sum.defined() ? mul(loss_sum, scale) : Tensor(), k + 1 == config_.grad_accum);
    p.loss += job_loss_sum * scale;
    p.accuracy += job;
  }
  return p;
}

StepMetrics Trainer::train_step() {
  const auto start = Clock::now();
  if (options_.parallel)  // this rank's dropout stream for this step (trainer.h)
    default_generator().set_state(config_.seed, ((options_.parallel->rank() + 1ull) << 56) +
                                                    (static_cast<uint64_t>(step_) << 32));
  const data::LoaderState loader_before = train_loader_->state();
  const Generator rng_before = default_generator();
  model_->train();
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
  train_loader_->set_state(loader);
  default_generator().set_state(rng.seed(), rng.offset());
  std::string found = "anomaly mode did not see it again on a second run of the step";
  try {
    AnomalyGuard anomaly;
    forward_backward();
  } catch (const Error& e) {
    found = fmt::format("the first op to produce a non-finite value is '{}' ({})", e.op(), e.what());
  }
  optimizer_->zero_grad();  // back to the state before the step: fit() may be called again
  train_loader_->set_state(loader);
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
  EvalMetrics m = train::evaluate(
      *model_, *val_loader_,
      {.max_batches = config_.eval_batches,
       .unscored_classes = data_.unscored_classes,
       .on_batch = nullptr,
       .parallel = options_.parallel.get()});
  m.step = step_;
  return m;
}

FitResult Trainer::fit(int64_t until) {
  return run_fit_loop(
      config_, options_, until,
      {.step = [this] { return step_; },
       .update = [this] { return train_step(); },
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
