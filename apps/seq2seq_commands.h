#pragma once
// The seq2seq side of train, eval and sample (arch seq2seq: train/seq2seq_trainer.h,
// train/seq2seq_decode.h). Internal to the program.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "apps/commands.h"
#include "train/checkpoint.h"
#include "train/config.h"

namespace tg::cli {

// Trains (or with `resume` a checkpoint path, continues) the run `config` describes, within the
// train command's StopSignalScope. `begin_training` is called once the trainer is set up: false
// stops the run there (it printed why).
void run_seq2seq_training(const train::TrainConfig& config, const std::string& resume, int threads,
                          const std::function<bool()>& begin_training, Io& io);

struct Seq2SeqEvalArgs {
  std::string data;     // a .tsv/.jsonl file to score whole ("": the run's validation pairs)
  int64_t beam = 0;     // 0: greedy
  int64_t batches = 0;  // 0: all
  int64_t show = 3;
  bool composed = false;
};
void run_seq2seq_eval(const train::Checkpoint& checkpoint, const std::filesystem::path& file,
                      const Seq2SeqEvalArgs& args, Io& io);

// The decoded output of `prompt`, printed on its own line.
void run_seq2seq_sample(const train::Checkpoint& checkpoint, const std::string& prompt, int64_t beam, Io& io);

}  // namespace tg::cli
