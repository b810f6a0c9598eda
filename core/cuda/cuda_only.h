#pragma once
// TG_CUDA_ONLY(call): an op's call into its CUDA kernel. Without the CUDA backend no tensor
// can live on a GPU, so the branch is unreachable and the kernel symbol is not referenced.
#include "core/error.h"

#ifdef TAPEGRAD_WITH_CUDA
#define TG_CUDA_ONLY(call) call
#else
#define TG_CUDA_ONLY(call) throw ::tg::Error("cuda", "tapegrad was built without CUDA")
#endif
