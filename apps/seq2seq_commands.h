#pragma once
// The seq2seq side of train, eval and sample (arch seq2seq: train/seq2seq_task.h,
// train/seq2seq_decode.h). Internal to the program.
#include <cstdint>
#include <filesystem>
#include <string>

#include "apps/commands.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/seq2seq_task.h"

namespace tg::cli {

// The lines of `tapegrad train`'s banner that describe a seq2seq run: its model and its pairs.
void print_seq2seq_run(const train::Seq2SeqTask& task, const train::TrainConfig& config, int64_t parameters, Io& io);

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
void run_seq2seq_sample(const train::Checkpoint& checkpoint, const std::filesystem::path& file,
                        const std::string& prompt, int64_t beam, Io& io);

}  // namespace tg::cli
