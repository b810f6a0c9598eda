#pragma once
// The Trainer's DataParallel on MPI: gradients summed by DistributedDataParallel (the Trainer
// divides each rank's loss by the whole job's count of scored positions).
//
//   dist::Session mpi;
//   train::Trainer trainer(config, {.parallel = std::make_shared<dist::TrainerParallel>()});
#include <memory>

#include "dist/ddp.h"
#include "train/data_parallel.h"

namespace tg::dist {

class TrainerParallel : public train::DataParallel {
 public:
  explicit TrainerParallel(int64_t bucket_bytes = DdpOptions{}.bucket_bytes) : bucket_bytes_(bucket_bytes) {}
  int rank() const override { return dist::rank(); }
  int world_size() const override { return dist::world_size(); }
  void attach(const std::vector<NamedParameter>& parameters) override;
  void backward(const Tensor& loss, bool sync) override;
  void sum(std::span<double> values) override { allreduce(values, Op::sum); }
  void check_parameters_agree(const std::string& when) override;
  DistributedDataParallel& ddp() const;  // after attach()

 private:
  int64_t bucket_bytes_;
  std::unique_ptr<DistributedDataParallel> ddp_;
};

}  // namespace tg::dist
