// The CUDA backend as seen from the core: allocation (the caching allocator), copies both ways,
// an op against the CPU, and clear errors where there is no GPU.
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("cuda: cuda_built and cuda_device_count agree") {
  CHECK(cuda_device_count() >= 0);
  if (!cuda_built()) CHECK(cuda_device_count() == 0);
  if (cuda_device_count() > 0) CHECK(cuda_built());
  CHECK(Device::cuda(1).str() == "cuda:1");
  CHECK(Device::cuda().is_cuda());
  CHECK(kCPU.str() == "cpu");
  if (cuda_device_count() == 0) {  // nothing was ever allocated on a GPU; emptying is harmless
    cuda_empty_cache();
    CHECK(cuda_memory_stats(0).driver_allocations == 0);
    CHECK(cuda_memory_stats(0).in_use_bytes == 0);
  }
}

TEST_CASE("cuda: the caching allocator serves repeated sizes from freed blocks") {
  if (!gpu_available_or_skip()) return;
  cuda_empty_cache();
  const CudaMemoryStats start = cuda_memory_stats(0);
  CHECK(start.cached_bytes == 0);
  // Size classes: up to 1 MiB a multiple of 512 B, above it 8 per power of two (2.5 MiB for c).
  const int64_t bucket_a = 4096, bucket_b = 16896, bucket_c = int64_t{5} << 19;
  for (int step = 0; step < 5; ++step) {  // like training steps: the same sizes every time
    Tensor a = empty({1000}, kF32, Device::cuda());    // 4000 B
    Tensor b = empty({3, 700}, kF64, Device::cuda());  // 16800 B
    Tensor c = empty({300000}, kF64, Device::cuda());  // 2.4 MB
    CHECK(cuda_memory_stats(0).in_use_bytes - start.in_use_bytes == bucket_a + bucket_b + bucket_c);
  }
  const CudaMemoryStats after = cuda_memory_stats(0);
  CHECK(after.driver_allocations - start.driver_allocations == 3);  // the first step only
  CHECK(after.cache_hits - start.cache_hits == 12);                 // the four later steps
  CHECK(after.in_use_bytes == start.in_use_bytes);
  CHECK(after.cached_bytes == bucket_a + bucket_b + bucket_c);
  {
    Tensor d = empty({312500}, kF64, Device::cuda());  // 2.5 MB: another size, the same 2.5 MiB class
    CHECK(cuda_memory_stats(0).cache_hits == after.cache_hits + 1);
    CHECK(cuda_memory_stats(0).driver_allocations == after.driver_allocations);
  }
  cuda_empty_cache();
  CHECK(cuda_memory_stats(0).cached_bytes == 0);
  Tensor e = empty({1000}, kF32, Device::cuda());  // after emptying: from the driver again
  CHECK(cuda_memory_stats(0).driver_allocations == after.driver_allocations + 1);
}

TEST_CASE("cuda: allocating on a GPU that is not there is a tg::Error") {
  if (cuda_device_count() > 0) {  // the one GPU-less case a GPU machine can check: a device index past the end
    CHECK_THROWS_WITH_AS(zeros({2}, kF32, Device::cuda(cuda_device_count())),
                         doctest::Contains("is not available"), Error);
    return;
  }
  CHECK_THROWS_AS(zeros({2}, kF32, Device::cuda()), Error);
  CHECK_THROWS_AS(to_device_copy(ones({2}), Device::cuda()), Error);
  if (!cuda_built())
    CHECK_THROWS_WITH_AS(empty({2}, kF32, Device::cuda()), doctest::Contains("tapegrad was built without CUDA"),
                         Error);
}

TEST_CASE("cuda: values survive copies both ways") {
  if (!gpu_available_or_skip()) return;
  Tensor host = tensor({1.5, -2, 3, 4, 5, 6}, {2, 3}, kF64);
  Tensor dev = to_device_copy(host, Device::cuda());
  CHECK(dev.is_cuda());
  CHECK(dev.device() == Device::cuda(0));
  CHECK(dev.shape() == Shape{2, 3});
  CHECK(dev.to_vector<double>() == host.to_vector<double>());  // to_vector copies to the host
  CHECK(to_device_copy(scalar(2.5, kF64), Device::cuda()).item() == 2.5);
  Tensor back = empty({2, 3}, kF64);
  copy_(back, dev);
  CHECK(back.to_vector<double>() == host.to_vector<double>());

  // Across devices and dtypes at once, from a non-contiguous source.
  Tensor t = make_view(host, {3, 2}, {1, 3}, 0);
  Tensor dev32 = empty({3, 2}, kF32, Device::cuda());
  copy_(dev32, t);
  CHECK(dev32.to_vector<float>() == std::vector<float>{1.5, 4, -2, 5, 3, 6});
  fill_(dev32, 2);
  CHECK(all_finite(dev32));
  CHECK(dev32.to_vector<float>() == std::vector<float>(6, 2));
  CHECK(fmt::format("{}", scalar(1, kF32, Device::cuda())) == "tensor(1., shape=(), dtype=float32, device=cuda:0)");
}

TEST_CASE("cuda: add on the GPU matches the CPU") {
  if (!gpu_available_or_skip()) return;
  Generator gen(3);
  Tensor a = rand({4, 3}, kF32, kCPU, gen), b = rand({3}, kF32, kCPU, gen);
  Tensor gpu = add(to_device_copy(a, Device::cuda()), to_device_copy(b, Device::cuda()));
  CHECK(gpu.is_cuda());
  require_close(to_device_copy(gpu, kCPU), add(a, b), 1e-6, 0);
  CHECK_THROWS_WITH_AS(add(a, to_device_copy(b, Device::cuda())),
                       doctest::Contains("add: tensors are on different devices"), Error);
}
