// Built when NCCL is not (cmake/TapegradNccl.cmake): gradients on a GPU then go through host
// memory and MPI (dist/ddp.cpp), and a communicator is a clear error.
#include "core/error.h"
#include "dist/nccl.h"

namespace tg::dist {

bool nccl_built() { return false; }

struct NcclCommunicator::State {};

NcclCommunicator::NcclCommunicator(Device) {
  throw Error("dist", "tapegrad was built without NCCL (configure with -DTAPEGRAD_NCCL=ON on a machine with the "
                      "CUDA toolkit, MPI and NCCL)");
}
NcclCommunicator::~NcclCommunicator() = default;
void NcclCommunicator::allreduce_sum(const Tensor&) {}
void NcclCommunicator::check_async_error() const {}

}  // namespace tg::dist
