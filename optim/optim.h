#pragma once
// The optim layer: optimizers, gradient clipping and learning-rate schedules.
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer.h"
#include "optim/sgd.h"
