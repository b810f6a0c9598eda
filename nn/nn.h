#pragma once
// Every nn module, one include per module (the nn registry).
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/encoder_layer.h"
#include "nn/feed_forward.h"
#include "nn/init.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/module_list.h"
#include "nn/multi_head_attention.h"
#include "nn/positional_encoding.h"
#include "nn/transformer_encoder.h"
