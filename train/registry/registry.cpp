#include "train/registry/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::train {

#define TG_ARCH(name) Arch name##_arch();
#define TG_TASK(name) Task name##_task();
#include "train/registry/registered.def"
#undef TG_ARCH
#undef TG_TASK

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

template <class Entry> const Entry* find(const std::vector<Entry>& entries, const std::string& name) {
  for (const Entry& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

template <class Entry> std::vector<std::string> names(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const Entry& e : entries) out.push_back(e.name);
  return out;
}

}  // namespace

bool Task::reads_field(const std::string& field) const { return contains(reads, field); }
bool Task::trains_with(const std::string& arch) const { return contains(archs, arch); }

const std::vector<Arch>& archs() {
#define TG_ARCH(name) name##_arch(),
#define TG_TASK(name)
  static const std::vector<Arch> all = {
#include "train/registry/registered.def"
  };
#undef TG_ARCH
#undef TG_TASK
  return all;
}

const std::vector<Task>& tasks() {
#define TG_ARCH(name)
#define TG_TASK(name) name##_task(),
  static const std::vector<Task> all = {
#include "train/registry/registered.def"
  };
#undef TG_ARCH
#undef TG_TASK
  return all;
}

const Arch& arch_named(const std::string& name) {
  if (const Arch* a = find(archs(), name)) return *a;
  throw Error("config", fmt::format("unknown arch \"{}\" ({})", name, one_of(arch_names())));
}

const Task& task_named(const std::string& name) {
  if (const Task* t = find(tasks(), name)) return *t;
  throw Error("config", fmt::format("unknown task \"{}\" ({})", name, one_of(task_names())));
}

bool is_arch(const std::string& name) { return find(archs(), name) != nullptr; }
bool is_task(const std::string& name) { return find(tasks(), name) != nullptr; }
std::vector<std::string> arch_names() { return names(archs()); }
std::vector<std::string> task_names() { return names(tasks()); }

std::vector<std::string> arch_names_where(bool Arch::*property, bool value) {
  std::vector<std::string> out;
  for (const Arch& a : archs())
    if (a.*property == value) out.push_back(a.name);
  return out;
}

std::vector<std::string> tasks_training_with(const std::string& arch) {
  std::vector<std::string> out;
  for (const Task& t : tasks())
    if (t.trains_with(arch)) out.push_back(t.name);
  return out;
}

std::vector<std::string> tasks_reading(const std::string& field) {
  std::vector<std::string> out;
  for (const Task& t : tasks())
    if (t.reads_field(field)) out.push_back(t.name);
  return out;
}

namespace {

std::string listed(const std::vector<std::string>& names, const char* last_joint) {
  if (names.size() <= 1) return names.empty() ? std::string() : names[0];
  const std::vector<std::string> head(names.begin(), names.end() - 1);
  return fmt::format("{}{}{}", fmt::join(head, ", "), last_joint, names.back());
}

}  // namespace

std::string one_of(const std::vector<std::string>& names) { return listed(names, " or "); }
std::string all_of(const std::vector<std::string>& names) { return listed(names, " and "); }

std::optional<Refusal> pairing_refusal(const TrainConfig& c, std::string_view prefix) {
  const Arch& arch = arch_named(c.arch);
  const Task& task = task_named(c.task);
  if (task.trains_with(arch.name)) return std::nullopt;
  if (arch.name != TrainConfig{}.arch)
    return Refusal{"arch", fmt::format("{} is {}: it needs {}task {}, got task {}", arch.name, arch.is, prefix,
                                       one_of(tasks_training_with(arch.name)), task.name)};
  return Refusal{"task", fmt::format("{} {}: it needs {}arch {}, got {}", task.name, task.does, prefix,
                                     one_of(task.archs), arch.name)};
}

}  // namespace tg::train
