#pragma once
// nn::init: every way a parameter is initialised, in one place (torch.nn.init). Each function
// overwrites t's values in place (no tape entry; t keeps its storage and stays a leaf) with
// numbers drawn from `gen` (default: the global generator, seeded by tg::manual_seed).
//
// Fans, as PyTorch computes them, for t of shape (out, in, k...) (at least 2 dims):
//   receptive = product of k... (1 for a matrix)
//   fan_in  = in  * receptive        (a Linear weight (out, in): fan_in = in)
//   fan_out = out * receptive
// Gains (calculate_gain): linear, sigmoid 1; tanh 5/3; relu sqrt(2);
//   leaky_relu sqrt(2 / (1 + a^2)); selu 3/4.
//
//   xavier_uniform_  U(-b, b),   b   = gain * sqrt(6 / (fan_in + fan_out))   (Glorot & Bengio 2010)
//   xavier_normal_   N(0, s^2),  s   = gain * sqrt(2 / (fan_in + fan_out))
//   kaiming_uniform_ U(-b, b),   b   = gain(nonlinearity, a) * sqrt(3 / fan)  (He et al. 2015)
//   kaiming_normal_  N(0, s^2),  s   = gain(nonlinearity, a) / sqrt(fan)
//                    fan = fan_in (mode fan_in: keeps forward variance) or fan_out (backward)
//   uniform_ U(low, high), normal_ N(mean, std^2), zeros_, ones_
// The std of U(-b, b) is b / sqrt(3): xavier_uniform_ and xavier_normal_ give the same variance.
#include <cstdint>
#include <utility>

#include "core/rng.h"
#include "core/tensor.h"

namespace tg::nn::init {

enum class Nonlinearity { linear, sigmoid, tanh, relu, leaky_relu, selu };
enum class FanMode { fan_in, fan_out };

double calculate_gain(Nonlinearity nonlinearity, double a = 0);  // a: leaky_relu's negative slope
std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t);  // {fan_in, fan_out}

void uniform_(const Tensor& t, double low = 0, double high = 1, Generator& gen = default_generator());
void normal_(const Tensor& t, double mean = 0, double std = 1, Generator& gen = default_generator());
void zeros_(const Tensor& t);
void ones_(const Tensor& t);
void xavier_uniform_(const Tensor& t, double gain = 1, Generator& gen = default_generator());
void xavier_normal_(const Tensor& t, double gain = 1, Generator& gen = default_generator());
void kaiming_uniform_(const Tensor& t, double a = 0, FanMode mode = FanMode::fan_in,
                      Nonlinearity nonlinearity = Nonlinearity::leaky_relu, Generator& gen = default_generator());
void kaiming_normal_(const Tensor& t, double a = 0, FanMode mode = FanMode::fan_in,
                     Nonlinearity nonlinearity = Nonlinearity::leaky_relu, Generator& gen = default_generator());

}  // namespace tg::nn::init
