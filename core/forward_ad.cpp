#include "core/forward_ad.h"

#include <fmt/format.h>

#include "core/factories.h"

namespace tg {

namespace {

void check_pair(const Tensor& primal, const Tensor& tangent, size_t i) {
  check_defined(primal, "jvp", "a primal");
  check_defined(tangent, "jvp", "a tangent");
  check_floating(primal, "jvp", "a primal");
  if (primal.impl()->tangent)
    throw Error("jvp", fmt::format("primal {} {} already carries a tangent: jvp inside jvp is not supported", i,
                                   primal.describe()));
  if (tangent.shape() != primal.shape() || tangent.dtype() != primal.dtype() || tangent.device() != primal.device())
    throw Error("jvp", fmt::format("tangent {} {} does not match its primal {}", i, tangent.describe(),
                                   primal.describe()));
}

}  // namespace

std::pair<TensorList, TensorList> jvp(const TensorFunction& f, const TensorList& primals, const TensorList& tangents) {
  if (primals.size() != tangents.size())
    throw Error("jvp", fmt::format("got {} tangents for {} primals", tangents.size(), primals.size()));
  TensorList duals;
  for (size_t i = 0; i < primals.size(); ++i) {
    check_pair(primals[i], tangents[i], i);
    Tensor dual = primals[i].detach();
    if (primals[i].requires_grad()) dual.requires_grad_();
    dual.impl()->tangent = tangents[i].detach().impl_ptr();
    duals.push_back(std::move(dual));
  }
  TensorList outputs = f(duals);
  TensorList output_tangents;
  for (const Tensor& out : outputs) {
    check_defined(out, "jvp", "an output of f");
    // An output no dual reached has a zero tangent. The tangents leave with jvp: later ops on
    // the outputs are ordinary again.
    output_tangents.push_back(out.impl()->tangent ? Tensor(out.impl()->tangent) : zeros_like(out));
    out.impl()->tangent.reset();
  }
  for (const Tensor& dual : duals) dual.impl()->tangent.reset();
  return {std::move(outputs), std::move(output_tangents)};
}

}  // namespace tg
