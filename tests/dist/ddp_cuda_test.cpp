// DistributedDataParallel with parameters on a GPU, on 2 ranks. Without NCCL (or with
// use_nccl off) the gradients go through host memory and MPI; the gpu-emulator preset runs
// these cases with the CUDA emulator's GPU. Without a GPU they return at once.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "core/copy.h"
#include "core/factories.h"
#include "dist/ddp.h"
#include "ops/matmul/matmul.h"
#include "ops/mean/mean.h"
#include "ops/relu/relu.h"
#include "optim/sgd.h"

namespace tg {

namespace {

const Device kGpu = Device::cuda(0);

// w1 (16,32) and w2 (32,8) drawn on the CPU from `seed`, then placed on `device`.
std::vector<NamedParameter> two_layers_on(Device device, uint64_t seed) {
  Generator gen(seed);
  const Tensor w1 = randn({16, 32}, kF32, kCPU, gen), w2 = randn({32, 8}, kF32, kCPU, gen);
  return {{"w1", to_device_copy(w1, device).requires_grad_()}, {"w2", to_device_copy(w2, device).requires_grad_()}};
}

Tensor loss_on(const std::vector<NamedParameter>& p, uint64_t data_seed) {
  Generator gen(data_seed);
  const Tensor x = to_device_copy(randn({4, 16}, kF32, kCPU, gen), p[0].tensor.device());
  return mean(matmul(relu(matmul(x, p[0].tensor)), p[1].tensor));
}

std::vector<float> host_values(const Tensor& t) { return to_device_copy(t, kCPU).to_vector<float>(); }

float largest_difference(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = host_values(a), y = host_values(b);
  REQUIRE(x.size() == y.size());
  float largest = 0;
  for (size_t i = 0; i < x.size(); ++i) largest = std::max(largest, std::abs(x[i] - y[i]));
  return largest;
}

}  // namespace

TEST_CASE("DistributedDataParallel on a GPU: through host memory, the same gradients and parameters as on the CPU") {
  if (cuda_device_count() == 0) return;  // the emulator always has one
  const int rank = dist::rank();
  // Rank 1 starts from other values on the GPU: the wrapper gives it rank 0's.
  std::vector<NamedParameter> gpu = two_layers_on(kGpu, rank == 0 ? 1 : 2);
  std::vector<NamedParameter> cpu = two_layers_on(kCPU, 1);
  dist::DistributedDataParallel gpu_ddp(gpu, {.bucket_bytes = 1024, .use_nccl = false});  // w2 alone, then w1
  dist::DistributedDataParallel cpu_ddp(cpu, {.bucket_bytes = 1024});
  CHECK(gpu_ddp.gradient_path() == dist::GradientPath::host_mpi);
  CHECK(cpu_ddp.gradient_path() == dist::GradientPath::cpu_mpi);
  REQUIRE(gpu_ddp.bucket_count() == 2);
  CHECK(gpu_ddp.parameters_hash() == cpu_ddp.parameters_hash());  // rank 0's values, on every rank

  SGD gpu_sgd(gpu_ddp.parameters(), {.lr = 0.1});
  SGD cpu_sgd(cpu_ddp.parameters(), {.lr = 0.1});
  for (int step = 0; step < 3; ++step) {
    gpu_ddp.backward(loss_on(gpu, 100 + 10 * step + rank));
    cpu_ddp.backward(loss_on(cpu, 100 + 10 * step + rank));
    for (size_t i = 0; i < gpu.size(); ++i) {
      CAPTURE(step);
      CAPTURE(i);
      CHECK(largest_difference(gpu[i].tensor.grad(), cpu[i].tensor.grad()) < 1e-5f);
    }
    using E = dist::DdpEvent;
    const std::vector<E>& events = gpu_ddp.events();
    const auto starts = std::count_if(events.begin(), events.end(), [](const E& e) { return e.kind == E::allreduce_start; });
    CHECK(starts == static_cast<long>(gpu_ddp.bucket_count()));  // one allreduce per bucket
    const auto first_start = std::find_if(events.begin(), events.end(), [](const E& e) { return e.kind == E::allreduce_start; });
    const auto backward_end = std::find_if(events.begin(), events.end(), [](const E& e) { return e.kind == E::backward_end; });
    CHECK(first_start < backward_end);  // w2's bucket went out (after its copy to the host) during backward
    gpu_sgd.step(), cpu_sgd.step();
    gpu_sgd.zero_grad(), cpu_sgd.zero_grad();
  }
  for (size_t i = 0; i < gpu.size(); ++i) CHECK(largest_difference(gpu[i].tensor, cpu[i].tensor) < 1e-5f);
  CHECK_NOTHROW(gpu_ddp.check_parameters_agree("after 3 steps"));
}

TEST_CASE("DistributedDataParallel on a GPU: parameters that diverge are an error on every rank") {
  if (cuda_device_count() == 0) return;
  std::vector<NamedParameter> gpu = two_layers_on(kGpu, 1);
  dist::DistributedDataParallel ddp(gpu, {.use_nccl = false});
  CHECK_NOTHROW(ddp.check_parameters_agree("at step 1"));
  if (dist::rank() == 1) copy_(gpu[0].tensor, full({16, 32}, 0.5, kF32, kCPU));
  CHECK_THROWS_WITH_AS(ddp.check_parameters_agree("at step 2"),
                       doctest::Contains("the ranks' parameters diverged at step 2: CRC-32"), Error);
}

TEST_CASE("DistributedDataParallel on a GPU: a model on two devices, or on different devices per rank, is refused") {
  if (cuda_device_count() == 0) return;
  std::vector<NamedParameter> mixed = two_layers_on(kCPU, 1);
  mixed[1].tensor = to_device_copy(mixed[1].tensor, kGpu).requires_grad_();
  CHECK_THROWS_WITH_AS(dist::DistributedDataParallel{mixed},
                       "DistributedDataParallel: every parameter must be on one device, but w1 is on cpu and w2 on "
                       "cuda:0: move the whole model to the CPU or to this rank's GPU (tg::dist::local_device())",
                       Error);
  // Rank 0 on the CPU, rank 1 on the GPU: each would make other collective calls.
  std::vector<NamedParameter> own = two_layers_on(dist::rank() == 0 ? kCPU : kGpu, 1);
  CHECK_THROWS_WITH_AS(dist::DistributedDataParallel(own, {.use_nccl = false}),
                       doctest::Contains("every rank must keep its parameters on the same kind of device, but rank 0 "
                                         "reduces gradients by cpu_mpi and rank 1 by host_mpi"),
                       Error);
}

TEST_CASE("tg::dist::local_device: this rank's GPU") {
  const int gpus = cuda_device_count();
  const Device device = dist::local_device();
  if (gpus == 0) CHECK(device.is_cpu());
  else CHECK(device == Device::cuda(dist::local_rank() % gpus));
  CHECK(dist::local_rank() == dist::rank());  // mpirun -np 2 puts both ranks on this machine
}

}  // namespace tg
