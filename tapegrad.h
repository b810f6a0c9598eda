#pragma once
// tapegrad: the library in one include: tensors, ops, the tape, nn, optimizers, data, training.
// The lessons and experiments (lessons/, library tapegrad::lessons) and the program's pages are
// not part of it: include lessons/lesson.h for them (tests/library/library_headers.cmake checks).
#include "core/allocator.h"
#include "core/backward.h"
#include "core/copy.h"
#include "core/factories.h"
#include "core/format.h"
#include "core/forward_ad.h"
#include "core/functional.h"
#include "core/grad.h"
#include "core/grad_mode.h"
#include "core/gradcheck.h"
#include "core/io/safetensors.h"
#include "core/numerics.h"
#include "core/rng.h"
#include "core/tape.h"
#include "core/tensor.h"
#include "data/data.h"
#include "nn/nn.h"
#include "ops/ops.h"
#include "optim/optim.h"
#include "train/train.h"
