#pragma once
// The registry of `tapegrad train`'s architectures and tasks (arch.h, task.h), listed once in
// registered.def. The command line, the config's validation, --help, the checkpoint's checks
// and every command read these descriptions.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "train/config.h"
#include "train/registry/arch.h"
#include "train/registry/task.h"

namespace tg::train {

const std::vector<Arch>& archs();  // in registered.def's order
const std::vector<Task>& tasks();

// The registered arch or task of that name; another name throws tg::Error("config",
// "unknown arch \"x\" (encoder, gpt or seq2seq)").
const Arch& arch_named(const std::string& name);
const Task& task_named(const std::string& name);
bool is_arch(const std::string& name);
bool is_task(const std::string& name);

std::vector<std::string> arch_names();
std::vector<std::string> task_names();
// The archs whose `property` is `value`: arch_names_where(&Arch::ties_weights) is {"gpt"}.
std::vector<std::string> arch_names_where(bool Arch::*property, bool value = true);
std::vector<std::string> tasks_training_with(const std::string& arch);
std::vector<std::string> tasks_reading(const std::string& field);  // empty: no task-specific field

// "a", "a or b", "a, b or c"; all_of: "a, b and c"
std::string one_of(const std::vector<std::string>& names);
std::string all_of(const std::vector<std::string>& names);

// Why the config's arch and task do not go together, naming the field to change ("arch" or
// "task") and the accepted values, with `prefix` before field names ("--" on the command line):
//   seq2seq is an encoder-decoder: it needs --task addition, number_words, sort_unique or file, got task copy
//   addition maps an input to an output of another length: it needs --arch seq2seq, got encoder
// The arch is blamed unless it is the default one (TrainConfig{}.arch). nullopt: they go together.
struct Refusal {
  std::string field;
  std::string why;
};
std::optional<Refusal> pairing_refusal(const TrainConfig& config, std::string_view prefix);

}  // namespace tg::train
