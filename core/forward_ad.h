#pragma once
// Forward mode, as torch.func.jvp: f's outputs and their directional derivatives along
// `tangents`, computed in the same forward pass. Each input is a dual tensor (its value and a
// tangent, TensorImpl::tangent); every op an input reaches runs its forward-mode rule
// (Recorder::forward, core/tape.h) and hands its outputs their tangents. No reverse pass runs.
//
//   auto [outs, tangent_outs] = tg::jvp([](const TensorList& x) { return TensorList{exp(x[0])}; },
//                                       {x}, {v});      // tangent_outs[0] == exp(x) * v
//
// A primal that requires grad enters f as a new leaf that requires grad, so f may take
// reverse-mode gradients inside (forward over reverse: the jvp of a gradient). The tangents
// themselves carry no history. One level: jvp inside jvp's f is an error.
#include <functional>
#include <utility>

#include "core/tensor.h"

namespace tg {

using TensorFunction = std::function<TensorList(const TensorList&)>;

std::pair<TensorList, TensorList> jvp(const TensorFunction& f, const TensorList& primals, const TensorList& tangents);

}  // namespace tg
