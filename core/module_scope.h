#pragma once
// The module whose forward is running on this thread, for the tape: every entry records the
// dotted path of the innermost module active when it was made (Entry::module), so that a page
// can group a model's tape by module (layer -> attention -> op).
//
//   Tensor Linear::forward(const Tensor& x) {
//     const ModuleScope in_module(path());   // nn::Module::path(): "encoder.layers.0.self_attn.q_proj"
//     ...                                      // every entry made here records that path
//   }
//
// Scopes nest and restore the outer one when they end. The path is shared, not copied: an entry
// holds a reference to the module's, so recording allocates nothing.
#include <memory>
#include <string>

namespace tg {

using ModulePath = std::shared_ptr<const std::string>;

class ModuleScope {
 public:
  explicit ModuleScope(const ModulePath& path);
  ~ModuleScope();
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;

 private:
  const ModulePath* outer_;
};

// The innermost open scope's path on this thread; null outside every module.
const ModulePath& current_module();

}  // namespace tg
