#pragma once
// Activation checkpointing (torch.utils.checkpoint): memory traded for a second forward.
//
//   TensorList out = tg::checkpoint([layer](const TensorList& in) -> TensorList { return {layer->forward(in[0])}; },
//                                   {x}, layer->parameters(), "encoder.layers.0");
//
// Forward runs fn with grad mode off: none of its ops is recorded, and the activations inside it
// are freed as soon as it returns. One tape entry "checkpoint" (attribute wraps = `wraps`) stands
// for all of them; its inputs are `inputs` and those of `params` that require grad; it saves
// `inputs` only. Its backward rule runs fn again, with grad mode on, on the saved inputs, with the
// default generator (core/rng.h) put back where the forward found it, so that dropout draws the
// same masks (and afterwards back where the backward found it), in the numerics version
// (core/numerics.h) the forward ran in, and takes tg::grad of the recomputed outputs with respect
// to the inputs and params, with the incoming gradients.
//
// fn must compute the same function each time: it may read the params and what it captured but
// not change them, and draw only from default_generator(). An output that depends on nothing
// requiring grad passes no gradient on; a param fn does not use gets none (undefined). When the
// backward creates a graph (create_graph), fn runs again on the inputs themselves, with their
// history, so the gradients can be differentiated again. Forward mode (tg::jvp) is refused.
#include <functional>
#include <string_view>

#include "core/tensor.h"

namespace tg {

using CheckpointFunction = std::function<TensorList(const TensorList& inputs)>;

TensorList checkpoint(const CheckpointFunction& fn, const TensorList& inputs, const TensorList& params,
                      std::string_view wraps = {});

}  // namespace tg
