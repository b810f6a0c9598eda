#pragma once
// Where a tensor's gradient comes from in a backward pass: the entries on the loss's backward
// path that read it (as an input that needs a gradient). Its gradient is the sum of their
// contributions. An entry that read it off that path (a forward computed and dropped, say) sends
// none and is not counted: what the explorer's page and the terminal's backward both say.
//
//   readers[x.id()] = {3, 5, 5}: entry #3 read x once, #5 twice (mul(x, x)), in tape order
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"

namespace tg::explore {

using GradientReaders = std::unordered_map<int64_t, std::vector<int64_t>>;  // tensor id -> tape positions

// Call before backward, while the tape still holds loss's graph.
GradientReaders gradient_readers(const Tensor& loss);

// "1 of the 2 contributions that add up to the gradient, from entries #4, #6": the words the page
// and the terminal print beside one contribution to tensor_id's gradient; "" when it has one.
std::string contribution_text(const GradientReaders& readers, int64_t tensor_id);

}  // namespace tg::explore
