// DistributedDataParallel on 2 ranks: the reduced gradients, buckets started during backward,
// the model check and the parameter comparison.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "core/factories.h"
#include "dist/ddp.h"
#include "ops/matmul/matmul.h"
#include "ops/mean/mean.h"
#include "ops/relu/relu.h"

namespace tg {

namespace {

// y = relu(x @ w1) @ w2 with x, w1, w2 drawn from `seed`: w1 (16,32), w2 (32,8), 2 KB and 1 KB.
std::vector<NamedParameter> two_layers(uint64_t seed, int64_t hidden = 32) {
  Generator gen(seed);
  return {{"w1", randn({16, hidden}, kF32, kCPU, gen).requires_grad_()},
          {"w2", randn({hidden, 8}, kF32, kCPU, gen).requires_grad_()}};
}

Tensor loss_of(const std::vector<NamedParameter>& p, uint64_t data_seed) {
  Generator gen(data_seed);
  const Tensor x = randn({4, 16}, kF32, kCPU, gen);
  return mean(matmul(relu(matmul(x, p[0].tensor)), p[1].tensor));
}

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

}  // namespace

TEST_CASE("DistributedDataParallel: gradients averaged over the ranks, one allreduce per bucket started in "
          "backward") {
  const int rank = dist::rank();
  // Rank 1 starts from other values: the wrapper gives it rank 0's.
  std::vector<NamedParameter> params = two_layers(rank == 0 ? 1 : 2);
  dist::DistributedDataParallel ddp(params, {.bucket_bytes = 1024});  // w2 alone, then w1
  REQUIRE(ddp.bucket_count() == 2);
  const std::vector<uint32_t> hashes = dist::allgather(ddp.parameters_hash());
  CHECK(hashes[0] == hashes[1]);

  // What each rank's own gradient is, and their mean: computed on a copy without the wrapper.
  std::vector<NamedParameter> copy = two_layers(1);
  loss_of(copy, 100 + rank).backward();
  std::vector<float> expected_w1 = values(copy[0].tensor.grad()), expected_w2 = values(copy[1].tensor.grad());
  dist::allreduce(expected_w1, dist::Op::average);
  dist::allreduce(expected_w2, dist::Op::average);

  ddp.backward(loss_of(params, 100 + rank));
  const std::vector<float> w1 = values(params[0].tensor.grad()), w2 = values(params[1].tensor.grad());
  for (size_t i = 0; i < w1.size(); ++i) CHECK(w1[i] == doctest::Approx(expected_w1[i]).epsilon(1e-6));
  for (size_t i = 0; i < w2.size(); ++i) CHECK(w2[i] == doctest::Approx(expected_w2[i]).epsilon(1e-6));

  using E = dist::DdpEvent;
  const std::vector<E>& events = ddp.events();
  std::vector<int> started;
  size_t first_start = events.size(), backward_end = events.size();
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind == E::allreduce_start) started.push_back(events[i].bucket), first_start = std::min(first_start, i);
    if (events[i].kind == E::backward_end) backward_end = i;
  }
  CHECK(started == std::vector<int>{0, 1});  // one per bucket, in order
  CHECK(first_start < backward_end);        // w2's bucket went out while backward still ran towards w1
  CHECK(std::count_if(events.begin(), events.end(), [](const E& e) { return e.kind == E::allreduce_done; }) == 2);

  // A second step: gradients accumulate in .grad() as without the wrapper, then are reduced again.
  ddp.backward(loss_of(params, 200 + rank));
  CHECK(std::count_if(ddp.events().begin(), ddp.events().end(),
                      [](const E& e) { return e.kind == E::allreduce_start; }) == 2);
}

TEST_CASE("DistributedDataParallel: a micro-batch without sync only accumulates, a rank with no loss adds zeros") {
  const int rank = dist::rank();
  std::vector<NamedParameter> params = two_layers(1);
  dist::DistributedDataParallel ddp(params);
  ddp.backward(loss_of(params, 300 + rank), {.sync = false});
  CHECK(ddp.events().empty());
  // Rank 1 has no examples in the second micro-batch.
  ddp.backward(rank == 0 ? loss_of(params, 400) : Tensor());

  std::vector<NamedParameter> copy = two_layers(1);
  loss_of(copy, 300 + rank).backward();
  if (rank == 0) loss_of(copy, 400).backward();
  std::vector<float> expected = values(copy[1].tensor.grad());
  dist::allreduce(expected, dist::Op::average);
  const std::vector<float> got = values(params[1].tensor.grad());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-6));
}

TEST_CASE("DistributedDataParallel: a rank that built another model is an error on every rank") {
  const int rank = dist::rank();
  std::vector<NamedParameter> params = two_layers(1, rank == 0 ? 32 : 24);
  CHECK_THROWS_WITH_AS(dist::DistributedDataParallel{params},
                       doctest::Contains("parameters (names, shapes, dtypes) of rank(s) 1 differ from rank 0's"),
                       Error);
  if (rank == 1)
    CHECK_THROWS_WITH_AS(dist::DistributedDataParallel{params},
                         doctest::Contains("parameter 0 is w1 (16,24) float32 here and w1 (16,32) float32 on rank 0"),
                         Error);
  else
    CHECK_THROWS_AS(dist::DistributedDataParallel{params}, Error);
}

TEST_CASE("DistributedDataParallel: parameters that diverge are an error on every rank") {
  std::vector<NamedParameter> params = two_layers(1);
  dist::DistributedDataParallel ddp(params);
  CHECK_NOTHROW(ddp.check_parameters_agree("at step 1"));
  if (dist::rank() == 1) params[0].tensor.data<float>()[3] += 1e-6f;
  CHECK_THROWS_WITH_AS(ddp.check_parameters_agree("at step 2"),
                       doctest::Contains("the ranks' parameters diverged at step 2: CRC-32"), Error);
}

TEST_CASE("tg::dist: rank, world size, allreduce, broadcast, barrier") {
  REQUIRE(dist::world_size() == 2);
  std::vector<double> x = {1.0 + dist::rank(), 10};
  dist::allreduce(x);
  CHECK(x == std::vector<double>{3, 20});
  std::vector<float> y = {static_cast<float>(dist::rank()) * 4 + 2};
  dist::allreduce(y, dist::Op::average);
  CHECK(y[0] == 4);
  std::vector<double> z = {dist::rank() == 1 ? 7.0 : 0.0};
  dist::broadcast(z, 1);
  CHECK(z[0] == 7);
  CHECK_NOTHROW(dist::barrier());
  CHECK_THROWS_WITH_AS(dist::broadcast(z, 2), "dist: broadcast from rank 2: the job has ranks 0 to 1", Error);
}

}  // namespace tg
