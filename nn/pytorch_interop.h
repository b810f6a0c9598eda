#pragma once
// PyTorch interop: state_dicts of nn.MultiheadAttention, nn.TransformerEncoderLayer and
// nn.TransformerEncoder, converted to and from ours.
//
// The names agree except for the attention's input projections, which PyTorch packs:
//   PyTorch                          tapegrad
//   <p>in_proj_weight (3E,E)         <p>q_proj.weight (E,E) = rows [0,E)
//                                    <p>k_proj.weight (E,E) = rows [E,2E)
//                                    <p>v_proj.weight (E,E) = rows [2E,3E)
//   <p>in_proj_bias (3E)             <p>q_proj.bias, <p>k_proj.bias, <p>v_proj.bias (E) likewise
//   <p>out_proj.weight/.bias         the same
// where <p> is the attention's prefix ("" for a lone attention, "self_attn." in an encoder
// layer, "layers.N.self_attn." in an encoder). Every other name (linear1.*, linear2.*, norm1.*,
// norm2.*, layers.N.*, the final norm.*) is the same on both sides and passes through unchanged,
// in place. An attention is recognised by PyTorch's in_proj_weight / in_proj_bias, and on our side
// by q/k/v_proj entries next to an out_proj.weight (a lone q_proj elsewhere is left alone). The
// packed entry takes the place of the first piece, so the two directions are exact inverses, order
// included: to_pytorch_state_dict(from_pytorch_state_dict(sd)) == sd bit for bit.
//
// The attention options that tapegrad's MultiHeadAttention does not have (kdim/vdim != embed_dim:
// separate q_proj_weight/k_proj_weight/v_proj_weight; add_bias_kv: bias_k/bias_v) are rejected
// with an error naming the entry.
#include <filesystem>

#include "core/io/safetensors.h"
#include "nn/module.h"

namespace tg::nn {

// PyTorch's names and layout -> ours. The pieces are views of the given tensors (no copy).
// Throws tg::Error("from_pytorch_state_dict", ...) for an in_proj_weight that is not 2-D with a
// first dim divisible by 3 and equal to 3 * its second, an in_proj_bias that is not 1-D with a
// length divisible by 3 or does not match its in_proj_weight, an unsupported attention entry,
// and a name that would appear twice.
NamedTensors from_pytorch_state_dict(const NamedTensors& state);

// Ours -> PyTorch's names and layout: each q/k/v triple packed into one new tensor. Throws
// tg::Error("to_pytorch_state_dict", ...) when a triple is incomplete or its pieces differ in
// shape, dtype or device, a weight is not square, or a name would appear twice.
NamedTensors to_pytorch_state_dict(const NamedTensors& state);

// Loads a safetensors file holding a PyTorch state_dict (e.g. written with
// safetensors.torch.save_file(model.state_dict(), path)) into `module`, through
// from_pytorch_state_dict and Module::load_state_dict (values converted to the module's dtype).
// Every entry must be float32 or float64 and finite (a NaN or an infinity is named with its
// element). Strict by default: every missing and unknown name is an error. A bad file throws
// load_safetensors' errors; a state that does not fit throws tg::Error("load_pytorch_safetensors",
// ...) naming the file and every wrong, missing and unknown entry (wrong shapes in the file's
// names: "in_proj_weight (expected (12,4), got (24,8))").
LoadResult load_pytorch_safetensors(Module& module, const std::filesystem::path& path, bool strict = true);

// Saves module.state_dict() in PyTorch's names and layout (atomically, as save_safetensors).
void save_pytorch_safetensors(const Module& module, const std::filesystem::path& path);

}  // namespace tg::nn
