#include "ops/common/one_hot.h"

#include <vector>

#include "core/factories.h"

namespace tg {

Tensor one_hot(const Tensor& indices, int64_t classes, DType dtype, int64_t skip) {
  const std::vector<int64_t> idx = indices.to_vector<int64_t>();
  std::vector<double> values(idx.size() * static_cast<size_t>(classes), 0.0);
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] != skip) values[i * static_cast<size_t>(classes) + static_cast<size_t>(idx[i])] = 1;
  Shape shape = indices.shape();
  shape.push_back(classes);
  return tensor(values, shape, dtype, indices.device());
}

}  // namespace tg
