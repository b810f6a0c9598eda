#pragma once
// tapegrad: everything a user needs in one include.
#include "core/backward.h"
#include "core/copy.h"
#include "core/factories.h"
#include "core/format.h"
#include "core/grad_mode.h"
#include "core/gradcheck.h"
#include "core/rng.h"
#include "core/tape.h"
#include "core/tensor.h"
#include "ops/ops.h"
