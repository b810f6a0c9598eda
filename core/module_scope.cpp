#include "core/module_scope.h"

namespace tg {

namespace {

const ModulePath kNoModule;
thread_local const ModulePath* current = &kNoModule;

}  // namespace

ModuleScope::ModuleScope(const ModulePath& path) : outer_(current) { current = &path; }

ModuleScope::~ModuleScope() { current = outer_; }

const ModulePath& current_module() { return *current; }

}  // namespace tg
