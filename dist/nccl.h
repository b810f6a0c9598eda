#pragma once
// NCCL for the gradients of DistributedDataParallel that live on a GPU. nccl.cpp when tapegrad
// is built with NCCL (cmake/TapegradNccl.cmake), nccl_absent.cpp otherwise.
//
// One communicator over every rank of the MPI job, each rank on its own GPU (local_device(),
// dist/dist.h): rank 0 makes the unique id (ncclGetUniqueId), MPI_Bcast hands it to every rank,
// each calls ncclCommInitRank. A reduction (ncclAllReduce, ncclSum, in place) is enqueued on
// the stream every tapegrad kernel runs on, the legacy default stream
// (core/cuda/cuda_runtime.cu): it runs after the kernels that wrote the bucket and before those
// that read it, and the host does not wait for it. Every NCCL or CUDA error is a tg::Error
// naming the call and the rank.
#include <memory>

#include "core/tensor.h"

namespace tg::dist {

bool nccl_built();

class NcclCommunicator {
 public:
  explicit NcclCommunicator(Device device);  // a collective: every rank, each with its own GPU
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  // buffer (1-D, float32 or float64, contiguous, on the communicator's GPU) = its sum over the ranks.
  void allreduce_sum(const Tensor& buffer);
  // Throws when a reduction enqueued earlier failed on the GPU (ncclCommGetAsyncError).
  void check_async_error() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tg::dist
