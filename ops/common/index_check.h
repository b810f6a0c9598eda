#pragma once
// Shared by ops that take integer indices (embedding, cross_entropy's targets, gather ...).
#include <cstdint>
#include <optional>
#include <string>

#include "core/tensor.h"

namespace tg {

// Checks that idx is a defined int64 tensor whose elements all lie in [0, limit), except
// those equal to `skip` (cross_entropy's ignore_index). Returns how many elements are not
// `skip`. The first offending element is named with its multi-index:
//   "<op>: <what> 12 at position (1,3) is out of range <context>"
// The check reads the values on the host: a CUDA idx is copied there first (one transfer).
int64_t check_indices(const Tensor& idx, int64_t limit, const char* op, const char* what,
                      const std::string& context, std::optional<int64_t> skip = {});

}  // namespace tg
