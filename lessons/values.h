#pragma once
// Reading a tensor's numbers, for the facts a lesson or an experiment checks. Internal to the
// lessons layer.
#include <vector>

#include "core/tensor.h"

namespace tg::lessons {

std::vector<double> values(const Tensor& t);          // row-major, as float64 (any dtype, strides, device)
double max_abs_diff(const Tensor& a, const Tensor& b);  // same number of elements
bool all_equal_to(const Tensor& t, double value);       // every element, exactly

}  // namespace tg::lessons
