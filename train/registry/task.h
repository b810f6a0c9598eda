#pragma once
// A task of `tapegrad train` (--task), described once: the archs it trains with, the config
// fields it reads, and how its data is made and scored. Each task is one file in
// train/registry/tasks/ and one line of train/registry/registered.def. Code that differs by
// task asks this description (task.causal, task.data(config), ...), never the task's name.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/io/input_file.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/eval_set.h"
#include "train/seq2seq_data.h"
#include "train/task_data.h"

namespace tg::train {

struct Task {
  std::string name;      // "copy": --task and the config's "task"
  std::string summary;   // --help: "copy", "lm (character LM)"
  std::string does;      // refusals: "addition <maps an input to an output of another length>: it needs --arch ..."
  std::vector<std::string> archs;  // the archs it trains with (registered names)
  // The task-specific config fields it reads ("data", "min_len", ...: train/config.h); a flag of
  // another task's field is refused ("--modulus: task copy does not read it (tasks that do: mod_add)").
  std::vector<std::string> reads;
  std::string required_data;  // non-empty: the task needs `data`, a file of this kind ("path.tsv or path.jsonl")
  bool causal = false;        // its per-position model sees only the positions before each (lm)
  bool text = false;          // its tokens are a text's characters, shown as they are (lm)
  // Its training set is drawn to the run's length (the synthetic tasks): a run resumed with more
  // steps has longer epochs, so its loader position is not the one a fixed set would have.
  bool data_sized_by_steps = false;

  // The data of a run with a per-position arch (null: the task has none), and of a run with an
  // arch that decodes sequences (null: none); each may assume the config valid.
  std::function<TaskData(const TrainConfig&)> data;
  std::function<Seq2SeqData(const TrainConfig&)> pairs;
  // The positions its model has when the config alone fixes them (nullopt: read from the data).
  std::function<std::optional<int64_t>(const TrainConfig&)> positions = [](const TrainConfig&) {
    return std::optional<int64_t>();
  };
  // `tapegrad eval --data FILE`: every example of a file, encoded with the checkpoint's
  // vocabularies (null: the task reads no data file); the run directory holds its other files.
  std::function<EvalSet(const Checkpoint&, const std::filesystem::path& run_dir, const InputFile&)> score_file;

  bool reads_field(const std::string& field) const;
  bool trains_with(const std::string& arch) const;
};

}  // namespace tg::train
