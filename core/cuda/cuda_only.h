#pragma once
// TG_CUDA_ONLY(call): an op's call into its CUDA kernel. Without the CUDA backend no tensor
// can live on a GPU, so the branch is unreachable and the kernel symbol is not referenced.
// TG_CUDA_KERNEL(fn): a CUDA kernel launcher passed as a value (ops/common/rowwise_op.h);
// nullptr without the CUDA backend, where only a TG_CUDA_ONLY branch could call it.
#include "core/error.h"

#ifdef TAPEGRAD_WITH_CUDA
#define TG_CUDA_ONLY(call) call
#define TG_CUDA_KERNEL(fn) fn
#else
#define TG_CUDA_ONLY(call) throw ::tg::Error("cuda", "tapegrad was built without CUDA")
#define TG_CUDA_KERNEL(fn) nullptr
#endif
