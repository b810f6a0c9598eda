#include "ops/matmul/gemm_input.h"

#include <algorithm>

#include "core/copy.h"
#include "core/strided_loop.h"

namespace tg {

namespace {

// Fills in.trans and in.ld from the matrix strides of in.x; false if neither layout fits.
bool read_in_place(GemmInput& in) {
  const int64_t r = in.x.dim() - 2, rows = in.x.size(r), cols = in.x.size(r + 1);
  const int64_t row_stride = in.x.strides()[r], col_stride = in.x.strides()[r + 1];
  // A dim of size 1 is never stepped along, so its stride does not matter.
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= std::max<int64_t>(cols, 1))) {
    in.trans = false;
    in.ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_stride;
    return true;
  }
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= std::max<int64_t>(rows, 1))) {
    in.trans = true;
    in.ld = cols == 1 ? std::max<int64_t>(rows, 1) : col_stride;
    return true;
  }
  return false;
}

void fill_offsets(GemmInput& in, const Shape& batch) {
  const int64_t r = in.x.dim() - 2;
  const Shape x_batch(in.x.shape().begin(), in.x.shape().begin() + r);
  const Shape x_strides(in.x.strides().begin(), in.x.strides().begin() + r);
  const Shape strides = broadcast_strides(x_batch, x_strides, batch);
  in.offsets.clear();
  in.offsets.reserve(numel(batch));
  serial_for_each<1>(batch, {&strides}, [&](const auto& off) { in.offsets.push_back(off[0]); });
}

}  // namespace

GemmInput gemm_input(const Tensor& x, const Shape& batch, bool uniform_stride) {
  GemmInput in;
  in.x = x;
  if (!read_in_place(in)) {
    in.x = contiguous_copy(x);
    read_in_place(in);
  }
  fill_offsets(in, batch);
  if (uniform_stride && batch_stride(in) < 0) {
    // Materialise the broadcast: batch + (rows, cols), contiguous.
    Shape full = batch;
    full.insert(full.end(), x.shape().end() - 2, x.shape().end());
    in.x = contiguous_copy(make_view(x, full, broadcast_strides(x.shape(), x.strides(), full), x.offset()));
    read_in_place(in);
    fill_offsets(in, batch);
  }
  return in;
}

int64_t batch_stride(const GemmInput& in) {
  if (in.offsets.size() < 2) return 0;
  const int64_t step = in.offsets[1] - in.offsets[0];
  for (size_t p = 0; p < in.offsets.size(); ++p)
    if (in.offsets[p] != static_cast<int64_t>(p) * step) return -1;
  return step;
}

}  // namespace tg
