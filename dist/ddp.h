#pragma once
// DistributedDataParallel: one model trained by every rank of a job (dist/dist.h) on its own
// examples, the gradients summed or averaged across ranks so that every rank takes the same step.
//
//   dist::Session mpi;
//   Mlp model;                                         // the same model on every rank
//   dist::DistributedDataParallel ddp(model);          // checks that, then rank 0's values everywhere
//   SGD optimizer(ddp.parameters());
//   for (...) {
//     Tensor loss = cross_entropy(model(my_shard), my_targets);
//     ddp.backward(loss);                              // gradients averaged over the ranks
//     optimizer.step(); optimizer.zero_grad();
//   }
//
// The parameters are grouped, last registered first (the order backward reaches them), into
// buckets of about bucket_bytes of gradient. A hook on each parameter (Tensor::register_hook)
// counts the gradients it receives in a backward; when the last one the graph holds for it
// arrives, its gradient is final. Once every gradient of a bucket is final the bucket's
// MPI_Iallreduce starts, while backward goes on with the rest; backward() waits for them all
// and writes the reduced gradients back into .grad(). Buckets start in order 0, 1, ... on every
// rank (MPI needs the same order everywhere), so a bucket ready early waits for the ones before it.
//
// backward(loss, {.sync = false}) only accumulates (a micro-batch before the last one);
// backward(Tensor(), ...) is a rank with no examples this step: it contributes zeros.
// Parameters are float32 or float64 tensors, all on one device: the CPU or one GPU.
//
// Gradients on a GPU (gradient_path()):
// - nccl, when tapegrad is built with NCCL (-DTAPEGRAD_NCCL, dist/nccl.h) and use_nccl is on:
//   the bucket is gathered on the GPU and ncclAllReduce is enqueued from the hook on the
//   stream of every tapegrad kernel, then scaled on the GPU. The host never waits for it; on
//   the GPU it runs in stream order between the backward kernels, so GPU compute and transfer
//   do not run at the same time. The model must be on local_device().
// - host_mpi otherwise: the bucket is gathered on the GPU, copied (cudaMemcpy, which waits for
//   the kernels queued before it) into a host buffer kept for the bucket (page-locked with a
//   real GPU), and its MPI_Iallreduce starts from the hook; MPI then moves it on while backward
//   goes on issuing and running the kernels of the earlier layers. After backward the buckets
//   are waited for in order, averaged on the host and copied back into .grad() on the GPU.
//   The device-to-host copies block the host and so do not overlap backward.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/hooks.h"
#include "core/tensor.h"
#include "dist/dist.h"
#include "dist/nccl.h"
#include "nn/module.h"
#include "optim/optimizer.h"

namespace tg::dist {

struct DdpOptions {
  int64_t bucket_bytes = int64_t{4} << 20;
  Op reduce = Op::average;  // sum: for a loss already divided by the whole job's count
  bool use_nccl = true;      // gradients on a GPU: NCCL when built; false: MPI through host memory
};

// How the gradients travel between the ranks.
enum class GradientPath { cpu_mpi, host_mpi, nccl };
const char* gradient_path_name(GradientPath path);  // "cpu_mpi", "host_mpi", "nccl"

struct BackwardOptions {
  bool sync = true;  // reduce the gradients after this backward
};

// What a synced backward did, in order (DistributedDataParallel::events()).
struct DdpEvent {
  enum Kind { backward_start, allreduce_start, backward_end, allreduce_done };
  Kind kind;
  int bucket = -1;  // allreduce_*: which bucket
};

class DistributedDataParallel {
 public:
  DistributedDataParallel(std::vector<NamedParameter> parameters, DdpOptions options = {});
  explicit DistributedDataParallel(const nn::Module& model, DdpOptions options = {});
  ~DistributedDataParallel();  // waits for reductions still running and removes the hooks
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  void backward(const Tensor& loss, BackwardOptions options = {});

  // Stops with a tg::Error on every rank when some rank's parameters differ from rank 0's
  // (compared by a CRC-32 of their bytes); `when` goes into the message ("at step 40").
  void check_parameters_agree(const std::string& when);
  uint32_t parameters_hash() const;

  const std::vector<NamedParameter>& parameters() const { return params_; }  // for the optimizer
  size_t bucket_count() const { return buckets_.size(); }
  GradientPath gradient_path() const { return path_; }
  int64_t synced_backwards() const { return synced_; }
  // In MPI_Wait for the buckets, over all synced backwards; 0 with NCCL (the GPU waits).
  double wait_seconds() const { return wait_seconds_; }
  const std::vector<DdpEvent>& events() const { return events_; }  // of the last synced backward

 private:
  struct Bucket;
  void check_devices();
  void check_same_model() const;
  void broadcast_parameters();
  void on_gradient(size_t param, const Tensor& grad);
  void stage(size_t param, const Tensor& final_grad);
  void start_ready_buckets();
  void finish();

  std::vector<NamedParameter> params_;
  DdpOptions options_;
  Device device_;
  GradientPath path_ = GradientPath::cpu_mpi;
  std::unique_ptr<NcclCommunicator> nccl_;  // path_ == nccl
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::vector<size_t> bucket_of_;      // param -> bucket
  std::vector<int64_t> offset_of_;     // param -> element offset in its bucket
  std::vector<int64_t> uses_left_;     // param -> gradients still to come in this backward
  std::vector<HookHandle> hooks_;
  size_t next_bucket_ = 0;             // the next bucket to start
  bool armed_ = false;                 // inside a synced backward
  std::vector<DdpEvent> events_;
  int64_t synced_ = 0;
  double wait_seconds_ = 0;
};

}  // namespace tg::dist
