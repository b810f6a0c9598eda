#pragma once
// What the Trainer asks of data-parallel training (TrainerOptions::parallel): this process is
// one rank of a job whose ranks each train on their share of every global batch. dist/
// implements it on MPI (dist/trainer_parallel.h); without one the Trainer is one process.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "data/metrics.h"
#include "optim/optimizer.h"

namespace tg::train {

class DataParallel {
 public:
  virtual ~DataParallel() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // Once, with the model's parameters: checks that every rank built the same model, then gives
  // every rank rank 0's values.
  virtual void attach(const std::vector<NamedParameter>& parameters) = 0;
  // backward of this rank's loss (undefined: no examples here); with sync, every parameter's
  // gradient is then the sum of all ranks' gradients.
  virtual void backward(const Tensor& loss, bool sync) = 0;
  virtual void sum(std::span<double> values) = 0;  // in place, over the ranks
  // A tg::Error on every rank if the ranks' parameters differ; `when` says at which step.
  virtual void check_parameters_agree(const std::string& when) = 0;
};

// `acc` summed over the ranks, and `value` with it (in place).
data::Accuracy summed(DataParallel& parallel, const data::Accuracy& acc, double& value);

}  // namespace tg::train
