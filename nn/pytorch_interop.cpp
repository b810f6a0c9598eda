#include "nn/pytorch_interop.h"

#include <array>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "core/grad_mode.h"
#include "core/non_finite.h"
#include "ops/cat/cat.h"
#include "ops/slice/slice.h"

namespace tg::nn {

namespace {

constexpr std::array<std::string_view, 3> kPieces{"q_proj.", "k_proj.", "v_proj."};  // in in_proj's order
// PyTorch attention entries with no tapegrad counterpart.
constexpr std::array<std::string_view, 5> kUnsupported{"q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k",
                                                       "bias_v"};

// True when name = prefix + leaf with prefix empty or ending in '.'; sets prefix.
bool has_leaf(const std::string& name, std::string_view leaf, std::string& prefix) {
  if (!name.ends_with(leaf)) return false;
  prefix = name.substr(0, name.size() - leaf.size());
  return prefix.empty() || prefix.back() == '.';
}

// "'self_attn.in_proj_weight' (24,8) float64 cpu"
std::string describe_entry(const std::string& name, const Tensor& t) {
  return fmt::format("'{}' {} {} {}", name, shape_str(t.shape()), dtype_name(t.dtype()), t.device().str());
}

void check_unique(const NamedTensors& out, const char* op) {
  std::set<std::string> seen;
  std::vector<std::string> twice;
  for (const auto& [name, _] : out)
    if (!seen.insert(name).second) twice.push_back(name);
  if (!twice.empty())
    throw Error(op, fmt::format("these names would appear more than once (given twice, or both packed and unpacked): "
                                "{}", fmt::join(twice, ", ")));
}

// The file's entries against the module's own in PyTorch's names, so that a wrong shape is named
// as the file has it (in_proj_weight (3E,E), not the q_proj piece cut from it).
void check_shapes(const Module& module, const NamedTensors& given, const std::filesystem::path& path) {
  std::map<std::string, Shape> expected;
  for (const auto& [name, t] : to_pytorch_state_dict(module.state_dict())) expected.emplace(name, t.shape());
  std::vector<std::string> wrong;
  for (const auto& [name, t] : given)
    if (auto it = expected.find(name); it != expected.end() && t.defined() && t.shape() != it->second)
      wrong.push_back(fmt::format("{} (expected {}, got {})", name, shape_str(it->second), shape_str(t.shape())));
  if (!wrong.empty())
    throw Error("load_pytorch_safetensors", fmt::format("{}: into {}: wrong shapes: {}", path.string(), module.type(),
                                                        fmt::join(wrong, ", ")));
}

// Every entry a floating tensor whose values are all finite: an integer or bool tensor would be
// converted into the weights without a word, and a NaN weight makes every output NaN.
void check_values(const NamedTensors& given, const std::filesystem::path& path) {
  for (const auto& [name, t] : given) {
    if (!t.defined()) continue;  // from_pytorch_state_dict names it
    if (!is_floating(t.dtype()))
      throw Error("load_pytorch_safetensors", fmt::format("{}: {}: a weight must be float32 or float64", path.string(),
                                                          describe_entry(name, t)));
    if (const NonFinite bad = first_non_finite(t); bad.index >= 0)
      throw Error("load_pytorch_safetensors", fmt::format("{}: '{}' holds {} at element {}: weights must be finite",
                                                          path.string(), name, bad.value, bad.index));
  }
}

}  // namespace

NamedTensors from_pytorch_state_dict(const NamedTensors& state) {
  constexpr const char* kOp = "from_pytorch_state_dict";
  std::map<std::string, Tensor> by_name(state.begin(), state.end());
  NamedTensors out;
  NoGradGuard no_grad;
  for (const auto& [name, t] : state) {
    check_defined(t, kOp, name.c_str());
    std::string p;
    for (std::string_view leaf : kUnsupported)
      if (has_leaf(name, leaf, p) && by_name.contains(p + "out_proj.weight"))
        throw Error(kOp, fmt::format("'{}': nn.MultiheadAttention with kdim/vdim != embed_dim (separate q/k/v "
                                     "weights) or add_bias_kv has no tapegrad counterpart", name));
    if (has_leaf(name, "in_proj_weight", p)) {
      // in_proj_weight (3E,E) -> q/k/v_proj.weight (E,E) each
      if (t.dim() != 2 || t.size(0) % 3 != 0 || t.size(0) != 3 * t.size(1))
        throw Error(kOp, fmt::format("{}: expected (3E,E), q, k and v stacked, {}", describe_entry(name, t),
                                     t.dim() != 2         ? std::string("but it is not 2-D")
                                     : t.size(0) % 3 != 0 ? std::string("but its first dim is not divisible by 3")
                                                          : fmt::format("i.e. ({},{})", t.size(0), t.size(0) / 3)));
      const int64_t E = t.size(1);
      for (size_t i = 0; i < kPieces.size(); ++i)
        out.emplace_back(p + std::string(kPieces[i]) + "weight", narrow(t, 0, static_cast<int64_t>(i) * E, E));
    } else if (has_leaf(name, "in_proj_bias", p)) {
      // in_proj_bias (3E) -> q/k/v_proj.bias (E) each
      if (t.dim() != 1 || t.size(0) % 3 != 0)
        throw Error(kOp, fmt::format("{}: expected (3E), q, k and v stacked, but it is not 1-D with a length "
                                     "divisible by 3", describe_entry(name, t)));
      if (auto w = by_name.find(p + "in_proj_weight"); w != by_name.end() && w->second.defined() &&
                                                       w->second.dim() >= 1 && w->second.size(0) != t.size(0))
        throw Error(kOp, fmt::format("{} does not match {}: expected ({})", describe_entry(name, t),
                                     describe_entry(w->first, w->second), w->second.size(0)));
      const int64_t E = t.size(0) / 3;
      for (size_t i = 0; i < kPieces.size(); ++i)
        out.emplace_back(p + std::string(kPieces[i]) + "bias", narrow(t, 0, static_cast<int64_t>(i) * E, E));
    } else {
      out.emplace_back(name, t);
    }
  }
  check_unique(out, kOp);
  return out;
}

NamedTensors to_pytorch_state_dict(const NamedTensors& state) {
  constexpr const char* kOp = "to_pytorch_state_dict";
  std::map<std::string, Tensor> by_name(state.begin(), state.end());
  std::set<std::string> packed;  // in_proj names already written
  NamedTensors out;
  NoGradGuard no_grad;
  for (const auto& [name, t] : state) {
    check_defined(t, kOp, name.c_str());
    // name = <p><piece><kind> of an attention (recognised by its <p>out_proj.weight)?
    std::string p, kind;
    for (std::string_view piece : kPieces)
      for (const char* k : {"weight", "bias"})
        if (std::string q; has_leaf(name, std::string(piece) + k, q) && by_name.contains(q + "out_proj.weight")) {
          p = q;
          kind = k;
        }
    if (kind.empty()) {
      out.emplace_back(name, t);
      continue;
    }
    const std::string in_proj = p + "in_proj_" + kind;
    if (!packed.insert(in_proj).second) continue;  // written at the first of its pieces

    // q/k/v_proj.weight (E,E) each -> in_proj_weight (3E,E); biases (E) -> in_proj_bias (3E)
    std::vector<std::string> names;
    for (std::string_view piece : kPieces) names.push_back(p + std::string(piece) + kind);
    std::vector<Tensor> pieces;
    for (const std::string& piece : names) {
      auto it = by_name.find(piece);
      if (it == by_name.end())
        throw Error(kOp, fmt::format("'{}' is missing: {} needs all of {}", piece, in_proj, fmt::join(names, ", ")));
      check_defined(it->second, kOp, piece.c_str());
      pieces.push_back(it->second);
    }
    const Tensor& q = pieces[0];
    bool ok = kind == "weight" ? q.dim() == 2 && q.size(0) == q.size(1) : q.dim() == 1;
    for (const Tensor& piece : pieces)
      ok = ok && piece.shape() == q.shape() && piece.dtype() == q.dtype() && piece.device() == q.device();
    if (!ok)
      throw Error(kOp, fmt::format("'{}' packs three {} pieces of one dtype and device, got {}, {} and {}", in_proj,
                                   kind == "weight" ? "(E,E)" : "(E)", describe_entry(names[0], pieces[0]),
                                   describe_entry(names[1], pieces[1]), describe_entry(names[2], pieces[2])));
    out.emplace_back(in_proj, cat(pieces, 0));
  }
  check_unique(out, kOp);
  return out;
}

LoadResult load_pytorch_safetensors(Module& module, const std::filesystem::path& path, bool strict) {
  SafetensorsFile file = load_safetensors(path);
  check_shapes(module, file.tensors, path);
  check_values(file.tensors, path);
  try {
    return module.load_state_dict(from_pytorch_state_dict(file.tensors), strict);
  } catch (const Error& e) {
    throw Error("load_pytorch_safetensors", fmt::format("{}: {}", path.string(), e.what()));
  }
}

void save_pytorch_safetensors(const Module& module, const std::filesystem::path& path) {
  save_safetensors(path, to_pytorch_state_dict(module.state_dict()));
}

}  // namespace tg::nn
