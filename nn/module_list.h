#pragma once
// ModuleList: children named "0", "1", ... in order (PyTorch's nn.ModuleList), so that a stack
// of layers gets the names layers.0.*, layers.1.*. It has no forward: its owner iterates.
#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tg::nn {

class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  template <class M> std::shared_ptr<M> push_back(std::shared_ptr<M> module) {
    return register_module(std::to_string(size_++), std::move(module));
  }
  int64_t size() const { return size_; }

 private:
  int64_t size_ = 0;
};

}  // namespace tg::nn
