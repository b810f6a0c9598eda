// NCCL communicator and in-place allreduce for gradients on a GPU (dist/nccl.h). Built only
// with TAPEGRAD_WITH_NCCL: the real CUDA backend, MPI and NCCL.
#include "dist/nccl.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <span>
#include <string>

#include <fmt/format.h>

#include "core/device.h"
#include "core/error.h"
#include "dist/dist.h"

namespace tg::dist {

namespace {

// "dist: rank 1: ncclCommInitRank failed: unhandled system error"
void check_nccl(ncclResult_t rc, const std::string& call) {
  if (rc != ncclSuccess) throw Error("dist", fmt::format("rank {}: {} failed: {}", rank(), call, ncclGetErrorString(rc)));
}

void check_cuda(cudaError_t rc, const std::string& call) {
  if (rc != cudaSuccess) throw Error("dist", fmt::format("rank {}: {} failed: {}", rank(), call, cudaGetErrorString(rc)));
}

// What rank 0 broadcasts: the unique id, or that making it failed (so no rank waits for it).
struct IdMessage {
  int ok = 0;
  ncclUniqueId id{};
};

}  // namespace

bool nccl_built() { return true; }

struct NcclCommunicator::State {
  ncclComm_t comm = nullptr;
  int device = 0;
};

NcclCommunicator::NcclCommunicator(Device device) : state_(std::make_unique<State>()) {
  if (!device.is_cuda())
    throw Error("dist", fmt::format("rank {}: NCCL reduces tensors on a GPU, not on {}", rank(), device.str()));
  state_->device = device.index;
  check_cuda(cudaSetDevice(device.index), fmt::format("cudaSetDevice({})", device.index));
  IdMessage message;
  std::string rank0_error;
  if (rank() == 0) {
    const ncclResult_t rc = ncclGetUniqueId(&message.id);
    message.ok = rc == ncclSuccess;
    if (!message.ok) rank0_error = ncclGetErrorString(rc);
  }
  broadcast(std::as_writable_bytes(std::span(&message, 1)));
  if (!message.ok)
    throw Error("dist", fmt::format("rank {}: ncclGetUniqueId failed on rank 0{}", rank(),
                                    rank0_error.empty() ? "" : ": " + rank0_error));
  check_nccl(ncclCommInitRank(&state_->comm, world_size(), message.id, rank()),
             fmt::format("ncclCommInitRank on cuda:{} ({} ranks)", device.index, world_size()));
}

// Finalize flushes the reductions still enqueued; errors are not thrown from a destructor.
NcclCommunicator::~NcclCommunicator() {
  if (!state_ || !state_->comm) return;
  cudaSetDevice(state_->device);
  ncclCommFinalize(state_->comm);
  ncclCommDestroy(state_->comm);
}

void NcclCommunicator::allreduce_sum(const Tensor& buffer) {
  if (buffer.device() != Device::cuda(state_->device) || !buffer.is_contiguous() ||
      (buffer.dtype() != DType::f32 && buffer.dtype() != DType::f64))
    throw Error("dist", fmt::format("rank {}: NCCL reduces a contiguous float32 or float64 tensor on cuda:{}, got {} "
                                    "on {}", rank(), state_->device, buffer.describe(), buffer.device().str()));
  check_cuda(cudaSetDevice(state_->device), fmt::format("cudaSetDevice({})", state_->device));
  const ncclDataType_t type = buffer.dtype() == DType::f32 ? ncclFloat32 : ncclFloat64;
  // Stream 0: the legacy default stream, which every tapegrad kernel and copy runs on.
  check_nccl(ncclAllReduce(buffer.raw_data(), buffer.raw_data(), static_cast<size_t>(buffer.numel()), type, ncclSum,
                           state_->comm, cudaStream_t{nullptr}),
             fmt::format("ncclAllReduce of {} values", buffer.numel()));
}

void NcclCommunicator::check_async_error() const {
  ncclResult_t async = ncclSuccess;
  check_nccl(ncclCommGetAsyncError(state_->comm, &async), "ncclCommGetAsyncError");
  check_nccl(async, "an enqueued ncclAllReduce");
}

}  // namespace tg::dist
