#include "train/seq2seq_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/cuda/cuda_runtime.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "optim/clip_grad.h"
#include "train/checkpoint.h"
#include "train/fit_loop.h"
#include "train/seq2seq_decode.h"

namespace tg::train {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

ModelConfig seq2seq_model_config(const TrainConfig& c, const Seq2SeqData& d) {
  return {.vocab_size = d.tokenizer.size(), .num_classes = d.tokenizer.size(), .max_len = d.max_len,
          .d_model = c.d_model, .heads = c.heads, .layers = c.layers, .ff = c.ff, .dropout = c.dropout,
          .causal = false, .arch = "seq2seq", .tie_weights = false};
}

}  // namespace

Seq2SeqTrainer::Seq2SeqTrainer(const TrainConfig& config, TrainerOptions options)
    : config_(config), options_(options), data_(make_seq2seq_data(config)) {
  device_ = parse_device(config_.device);
  manual_seed(config_.seed);  // the parameters' initial values, then dropout, draw from it
  model_ = std::make_unique<Seq2SeqModel>(seq2seq_model_config(config_, data_));
  initial_rng_offset_ = default_generator().offset();
  if (!device_.is_cpu()) model_->to_(device_);
  model_->set_composed(config_.composed);
  for (auto& [name, t] : model_->named_parameters()) params_.push_back({name, t});
  optimizer_ = std::make_unique<AdamW>(weight_decay_groups(params_),
                                       AdamWOptions{.lr = config_.lr, .weight_decay = config_.weight_decay});
  scheduler_ = std::make_unique<Scheduler>(
      *optimizer_, warmup_cosine(config_.lr, config_.warmup, config_.steps, config_.lr * config_.min_lr_ratio));
}

std::filesystem::path Seq2SeqTrainer::checkpoint_path() const {
  return std::filesystem::path(config_.out) / "checkpoint.safetensors";
}

data::LoaderState Seq2SeqTrainer::loader_state(int64_t steps) const {
  const int64_t read = steps * config_.grad_accum, per_epoch = data_.batches_per_epoch(config_.batch_size);
  return per_epoch > 0 ? data::LoaderState{read / per_epoch, read % per_epoch} : data::LoaderState{0, read};
}

void Seq2SeqTrainer::resume(const std::filesystem::path& where) {
  const std::filesystem::path file = checkpoint_file(where);
  const Checkpoint c = load_checkpoint(file);
  check_resume(file, c, config_, model_->config);
  const data::LoaderState expected = loader_state(c.step);
  if (c.loader != expected)
    throw Error("resume", fmt::format("{}: the loader is at epoch {}, batch {}, but {} steps end at epoch {}, batch {}",
                                      file.string(), c.loader.epoch, c.loader.batch, c.step, expected.epoch,
                                      expected.batch));
  if (c.rng_offset < initial_rng_offset_)
    throw Error("resume", fmt::format("{}: rng.offset is {}, before the {} the initial weights already drew",
                                      file.string(), c.rng_offset, initial_rng_offset_));
  if (c.input_vocab != data_.tokenizer.vocab())
    throw Error("resume", fmt::format("{}: the checkpoint's vocabulary differs from this run's data (the data file "
                                      "changed?)", file.string()));
  try {
    model_->load_state_dict(c.model);
    optimizer_->load_state_dict(c.optimizer);
    scheduler_->load_state_dict(c.scheduler);
  } catch (const Error& e) {
    throw Error("resume", fmt::format("{}: {}", file.string(), e.what()));
  }
  default_generator().set_state(c.rng_seed, c.rng_offset);
  step_ = c.step;
}

void Seq2SeqTrainer::save_checkpoint(const std::filesystem::path& path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  train::save_checkpoint(path, {.config = config_,
                                .model_config = model_->config,
                                .input_vocab = data_.tokenizer.vocab(),
                                .output_vocab = data_.tokenizer.vocab(),
                                .model = model_->state_dict(),
                                .optimizer = optimizer_->state_dict(),
                                .scheduler = scheduler_->state_dict(),
                                .step = step_,
                                .rng_seed = default_generator().seed(),
                                .rng_offset = default_generator().offset(),
                                .loader = loader_state(step_)});
}

StepMetrics Seq2SeqTrainer::train_step() {
  const auto start = Clock::now();
  model_->train();
  StepMetrics m{.step = step_ + 1};
  int64_t correct = 0, scored = 0;
  const auto accum = static_cast<double>(config_.grad_accum);
  for (int64_t k = 0; k < config_.grad_accum; ++k) {
    const int64_t index = step_ * config_.grad_accum + k;
    const Seq2SeqBatch b =
        make_seq2seq_batch(data_.training_batch(index, config_.batch_size), data_.tokenizer, device_);
    const Tensor logits = model_->forward(b.src, b.src_padding, b.tgt_in, b.tgt_padding);  // (B,T,V)
    const Tensor loss = cross_entropy(logits, b.tgt_out);  // mean over target tokens; pads are kIgnoreIndex
    loss.backward(config_.grad_accum > 1 ? full({}, 1 / accum, loss.dtype(), loss.device()) : Tensor());
    m.loss += loss.item() / accum;
    m.tokens += b.src_tokens + b.tgt_tokens;
    NoGradGuard no_grad;
    const std::vector<int64_t> target = b.tgt_out.to_vector<int64_t>();
    const std::vector<float> scores = logits.to_vector<float>();
    const int64_t V = model_->config.num_classes;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == data::kIgnoreIndex) continue;
      const auto row = scores.begin() + static_cast<int64_t>(i) * V;
      correct += std::max_element(row, row + V) - row == target[i];
      ++scored;
    }
  }
  m.token_accuracy = static_cast<double>(correct) / static_cast<double>(std::max<int64_t>(scored, 1));
  m.grad_norm = clip_grad_norm(params_, config_.clip > 0 ? config_.clip : kInfNorm);
  if (!std::isfinite(m.loss) || !std::isfinite(m.grad_norm)) {
    optimizer_->zero_grad();
    throw Error("train", fmt::format("step {}: the loss is {} and the gradient norm {}; training stopped, nothing "
                                     "written for this step", m.step, m.loss, m.grad_norm));
  }
  m.lr = scheduler_->step();
  optimizer_->step();
  optimizer_->zero_grad();
  ++step_;
  if (device_.is_cuda()) cuda_synchronize();
  m.ms = ms_since(start);
  return m;
}

EvalMetrics Seq2SeqTrainer::evaluate() {
  std::vector<data::Seq2SeqPair> pairs = data_.val;
  if (config_.eval_batches > 0 && std::ssize(pairs) > config_.eval_batches * config_.batch_size)
    pairs.resize(static_cast<size_t>(config_.eval_batches * config_.batch_size));
  EvalMetrics m = evaluate_seq2seq(*model_, data_.tokenizer, pairs, {.beam = 0, .batch_size = config_.batch_size});
  m.step = step_;
  return m;
}

FitResult Seq2SeqTrainer::fit(int64_t until) {
  return run_fit_loop(
      config_, options_, until,
      {.step = [this] { return step_; },
       .update = [this] { return train_step(); },
       .evaluate = [this] { return evaluate(); },
       .after_update = nullptr,
       .save_checkpoint = [this] { save_checkpoint(checkpoint_path()); },
       .observers = observers_,
       .on_step = nullptr,
       .stop_requested = [this] { return stop_requested && stop_requested(); }});
}

}  // namespace tg::train
