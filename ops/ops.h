#pragma once
// Every differentiable op, one include per op folder.
#include "ops/add/add.h"
#include "ops/contiguous/contiguous.h"
#include "ops/expand/expand.h"
#include "ops/reshape/reshape.h"
#include "ops/sum/sum.h"
