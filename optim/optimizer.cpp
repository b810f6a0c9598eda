#include "optim/optimizer.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/openmp_wait.h"
#include "core/tape.h"

namespace tg {

namespace {

// "missing entries: a, b; unexpected entries: c" (the parts that apply).
std::string entry_problems(const std::vector<std::string>& missing, const std::vector<std::string>& unexpected) {
  std::vector<std::string> parts;
  if (!missing.empty()) parts.push_back(fmt::format("missing entries: {}", fmt::join(missing, ", ")));
  if (!unexpected.empty()) parts.push_back(fmt::format("unexpected entries: {}", fmt::join(unexpected, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::vector<ParamGroup> weight_decay_groups(const std::vector<NamedParameter>& params) {
  ParamGroup decay{"decay", {}, {}, {}};
  ParamGroup no_decay{"no_decay", {}, {}, 0.0};
  for (const NamedParameter& p : params) {
    std::string lower = p.name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    bool exempt = !p.tensor.defined() || p.tensor.dim() < 2 || lower.find("norm") != std::string::npos;
    (exempt ? no_decay : decay).params.push_back(p);
  }
  return {decay, no_decay};
}

Optimizer::Optimizer(std::string name, std::vector<ParamGroup> groups, double default_lr,
                     double default_weight_decay)
    : name_(std::move(name)), groups_(std::move(groups)) {
  std::set<std::string> group_names, param_names;
  std::map<const Storage*, std::string> storages;  // -> the parameter that uses it
  for (size_t g = 0; g < groups_.size(); ++g) {
    ParamGroup& group = groups_[g];
    if (group.name.empty()) group.name = std::to_string(g);
    if (!group_names.insert(group.name).second)
      throw Error(name_, fmt::format("two parameter groups are named '{}'", group.name));
    group.lr = group.lr.value_or(default_lr);
    group.weight_decay = group.weight_decay.value_or(default_weight_decay);
    check_option(*group.lr >= 0, fmt::format("lr of group '{}'", group.name).c_str(), ">= 0", *group.lr);
    check_option(*group.weight_decay >= 0, fmt::format("weight_decay of group '{}'", group.name).c_str(), ">= 0",
                 *group.weight_decay);
    for (const NamedParameter& p : group.params) {
      const Tensor& t = p.tensor;
      auto bad = [&](const std::string& why) {
        return Error(name_, fmt::format("parameter '{}' {}", p.name, why));
      };
      if (p.name.empty()) throw Error(name_, "a parameter has an empty name");
      if (!param_names.insert(p.name).second) throw bad("appears twice");
      if (!t.defined()) throw bad("is an undefined tensor");
      if (!is_floating(t.dtype())) throw bad(fmt::format("must be float32 or float64, got {}", t.describe()));
      if (!t.is_leaf()) throw bad(fmt::format("{} is not a leaf (it was computed by '{}')", t.describe(), t.producer()->op));
      if (!t.requires_grad()) throw bad(fmt::format("{} does not require grad", t.describe()));
      if (!t.is_contiguous()) throw bad(fmt::format("{} is not contiguous", t.describe()));
      auto [it, fresh] = storages.emplace(t.storage().get(), p.name);
      if (!fresh) throw bad(fmt::format("shares its storage with parameter '{}'", it->second));
    }
    state_.emplace_back(group.params.size());
  }
  if (param_names.empty()) throw Error(name_, "got an empty parameter list");
}

void Optimizer::check_option(bool ok, const char* what, const char* rule, double value) const {
  if (!ok) throw Error(name_, fmt::format("{} must be {}, got {}", what, rule, value));
}

void Optimizer::step() {
  NoGradGuard no_grad;
  const std::vector<std::string> names = buffer_names();
  // Every gradient is checked before any state changes, so a bad one leaves the step undone.
  for (const ParamGroup& group : groups_)
    for (const NamedParameter& p : group.params) {
      const Tensor grad = p.tensor.grad();
      if (grad.defined() && (grad.shape() != p.tensor.shape() || grad.dtype() != p.tensor.dtype() ||
                             !grad.is_contiguous() || grad.device() != p.tensor.device()))
        throw Error(name_, fmt::format("the gradient of parameter '{}' {} on {} is a {} on {} (contiguous: {})",
                                       p.name, p.tensor.describe(), p.tensor.device().str(), grad.describe(),
                                       grad.device().str(), grad.is_contiguous()));
    }
  for (size_t g = 0; g < groups_.size(); ++g) {
    std::vector<ParamUpdate> updates;
    for (size_t i = 0; i < groups_[g].params.size(); ++i) {
      const NamedParameter& p = groups_[g].params[i];
      Tensor grad = p.tensor.grad();
      if (!grad.defined()) continue;
      ParamState& state = state_[g][i];
      if (state.step == 0)
        for (size_t b = 0; b < names.size(); ++b) state.buffers.push_back(zeros_like(p.tensor));
      ++state.step;
      updates.push_back({p, std::move(grad), state});
    }
    if (updates.empty()) continue;
    update(groups_[g], updates);
    for (const ParamUpdate& u : updates) u.param.tensor.storage()->bump_version();
  }
  openmp_update_finished();  // an update's end: how the OpenMP threads wait may change (core/openmp_wait.h)
}

void Optimizer::zero_grad() {
  for (ParamGroup& group : groups_)
    for (NamedParameter& p : group.params) p.tensor.zero_grad();
}

void Optimizer::set_lr(double lr) {
  check_option(lr >= 0, "lr", ">= 0", lr);
  for (ParamGroup& group : groups_) group.lr = lr;
}

void Optimizer::set_lr(const std::string& group, double lr) {
  check_option(lr >= 0, "lr", ">= 0", lr);
  for (ParamGroup& g : groups_)
    if (g.name == group) {
      g.lr = lr;
      return;
    }
  std::vector<std::string> names;
  for (const ParamGroup& g : groups_) names.push_back(g.name);
  throw Error(name_, fmt::format("set_lr: no parameter group named '{}' (groups: {})", group, fmt::join(names, ", ")));
}

const ParamState& Optimizer::state_of(const Tensor& param) const {
  for (size_t g = 0; g < groups_.size(); ++g)
    for (size_t i = 0; i < groups_[g].params.size(); ++i)
      if (param.defined() && groups_[g].params[i].tensor.impl() == param.impl()) return state_[g][i];
  throw Error(name_, fmt::format("state: {} is not one of this optimizer's parameters",
                                 param.defined() ? param.describe() : "an undefined tensor"));
}

std::vector<NamedParameter> Optimizer::parameters() const {
  std::vector<NamedParameter> all;
  for (const ParamGroup& group : groups_) all.insert(all.end(), group.params.begin(), group.params.end());
  return all;
}

StateDict Optimizer::state_dict() const {
  StateDict dict;
  for (const auto& [key, value] : options()) dict.emplace_back("options." + key, scalar(value, kF64));
  for (const ParamGroup& group : groups_) {
    dict.emplace_back("group." + group.name + ".lr", scalar(*group.lr, kF64));
    dict.emplace_back("group." + group.name + ".weight_decay", scalar(*group.weight_decay, kF64));
  }
  const std::vector<std::string> names = buffer_names();
  for (size_t g = 0; g < groups_.size(); ++g)
    for (size_t i = 0; i < groups_[g].params.size(); ++i) {
      const ParamState& state = state_[g][i];
      if (state.step == 0) continue;
      const std::string prefix = "state." + groups_[g].params[i].name + ".";
      dict.emplace_back(prefix + "step", scalar(static_cast<double>(state.step), kI64));
      for (size_t b = 0; b < names.size(); ++b) dict.emplace_back(prefix + names[b], contiguous_copy(state.buffers[b]));
    }
  return dict;
}

void Optimizer::load_state_dict(const StateDict& dict) {
  auto fail = [&](const std::string& what) { return Error(name_, "load_state_dict: " + what); };
  std::map<std::string, Tensor> entries;
  for (const auto& [key, t] : dict)
    if (!entries.emplace(key, t).second) throw fail(fmt::format("entry '{}' appears twice", key));
  std::set<std::string> used;
  std::vector<std::string> missing;
  auto find = [&](const std::string& key) -> const Tensor* {
    auto it = entries.find(key);
    if (it == entries.end()) return missing.push_back(key), nullptr;
    used.insert(key);
    if (!it->second.defined()) throw fail(fmt::format("entry '{}' is an undefined tensor", key));
    return &it->second;
  };
  auto number = [&](const std::string& key) {
    const Tensor* t = find(key);
    if (t && t->numel() != 1)
      throw fail(fmt::format("entry '{}' must hold one number, got shape {}", key, shape_str(t->shape())));
    return t ? t->item() : 0.0;
  };

  // Options and group values first: the options decide which buffers the state holds.
  std::map<std::string, double> new_options, old_options;
  for (const auto& [key, value] : options()) {
    old_options[key] = value;
    new_options[key] = number("options." + key);
  }
  std::vector<std::pair<double, double>> new_groups;  // (lr, weight_decay)
  for (const ParamGroup& group : groups_) {
    const std::string prefix = "group." + group.name + ".";
    new_groups.emplace_back(number(prefix + "lr"), number(prefix + "weight_decay"));
    check_option(new_groups.back().first >= 0, (prefix + "lr").c_str(), ">= 0", new_groups.back().first);
    check_option(new_groups.back().second >= 0, (prefix + "weight_decay").c_str(), ">= 0", new_groups.back().second);
  }
  if (!missing.empty()) {  // unexpected options hint at another optimizer's checkpoint
    std::vector<std::string> unexpected;
    for (const auto& [key, t] : entries)
      if (key.starts_with("options.") && !used.count(key)) unexpected.push_back(key);
    throw fail(entry_problems(missing, unexpected));
  }
  set_options(new_options);  // checks the values; on failure nothing has changed
  std::vector<std::vector<ParamState>> new_state(groups_.size());
  try {
    const std::vector<std::string> names = buffer_names();
    for (size_t g = 0; g < groups_.size(); ++g)
      for (const NamedParameter& p : groups_[g].params) {
        ParamState& state = new_state[g].emplace_back();
        const std::string prefix = "state." + p.name + ".";
        if (!entries.count(prefix + "step")) continue;  // never updated: no state
        const double step = number(prefix + "step");
        if (!(step >= 1) || step != static_cast<double>(static_cast<int64_t>(step)))
          throw fail(fmt::format("entry '{}step' must be a whole number >= 1, got {}", prefix, step));
        state.step = static_cast<int64_t>(step);
        for (const std::string& buffer : names) {
          const Tensor* saved = find(prefix + buffer);
          if (!saved) continue;
          if (saved->shape() != p.tensor.shape() || !is_floating(saved->dtype()))
            throw fail(fmt::format("entry '{}{}' is a {} {} tensor but parameter '{}' is {}", prefix, buffer,
                                        shape_str(saved->shape()), dtype_name(saved->dtype()), p.name,
                                        p.tensor.describe()));
          Tensor copy = empty_like(p.tensor);
          copy_(copy, *saved);
          state.buffers.push_back(copy);
        }
      }
    std::vector<std::string> unexpected;
    for (const auto& [key, t] : entries)
      if (!used.count(key)) unexpected.push_back(key);
    if (!missing.empty() || !unexpected.empty()) throw fail(entry_problems(missing, unexpected));
  } catch (...) {
    set_options(old_options);
    throw;
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    groups_[g].lr = new_groups[g].first;
    groups_[g].weight_decay = new_groups[g].second;
  }
  state_ = std::move(new_state);
}

}  // namespace tg
