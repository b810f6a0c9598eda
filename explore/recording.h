#pragma once
// A recording of one computation: what tapegrad explore's page shows, as one JSON document.
//
//   tape().clear();                        // number the entries from 0
//   TapeCapture capture;                   // keeps every entry's tensors (core/tape_capture.h)
//   Tensor loss = ...;                     // the forward, recorded on the tape
//   nlohmann::json rec = record(capture, loss);
//
// record() runs loss's backward one entry at a time (BackwardStepper) and keeps what flows in
// (the gradients of each entry's outputs) and out (the gradients its rule gives its inputs).
//
// JSON (a tensor's "value" is a summary, explore/tensor_summary.h; ids are Tensor::id()):
//   "loss":     its value (a non-finite one as a string, as in a summary)
//   "dot":      the tape as Graphviz DOT (Tape::to_dot: ops are nodes "op<position>"); only
//               with Graphs::kDot
//   "groups":   the module groups the pages nest the entries in (explore/module_groups.h),
//               outermost first within each run: {"name": its last level ("layers.0"), "path",
//               "first", "last": the positions of its first and last entry, and with
//               Graphs::kDot "dot": those entries alone as DOT}
//   "entries":  in execution order: {"position", "op", "module": the dotted path of the module
//               that made it ("encoder.layers.0.self_attn.q_proj"; "" outside every module,
//               core/module_scope.h), "attributes": [[key, value]],
//               "inputs": [{"tensor": id or null, "requires_grad"}], "outputs": [id],
//               "saved": [{"name", "tensor": id}], "doc": the op's documentation or null}
//   "tensors":  {"<id>": {"id", "name", "kind": "parameter" | "constant" | "computed" | "saved"
//               | "gradient", "value"}}, every tensor the entries and steps name
//   "backward": in the order backward runs them: {"position", "grads_in": [id or null per
//               output], "grads_out": [id or null per input], "contributions": [per input: for
//               a tensor whose gradient sums several, which of them this is
//               (explore/gradient_readers.h), else null]}
//   "leaf_grads": {"<leaf id>": gradient id}: each parameter's accumulated gradient
#include <nlohmann/json.hpp>

#include "core/tape_capture.h"

namespace tg::explore {

// The graphs as Graphviz DOT (kDot: tapegrad explore lays them out with dot), or none (kNone:
// the lab lays the graph out in the page from the entries).
enum class Graphs { kDot, kNone };

nlohmann::json record(const TapeCapture& capture, const Tensor& loss, Graphs graphs = Graphs::kDot);

}  // namespace tg::explore
