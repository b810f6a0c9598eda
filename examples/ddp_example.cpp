// Data-parallel training of an nn::Module with tg::dist (docs/guide.md, "On several processes (MPI)"):
//
//   mpirun -np 2 build/ci/examples/ddp_example
//
// Each rank fits y = x @ w with its own random examples; DistributedDataParallel averages the
// gradients over the ranks, so that every rank takes the same steps and ends with the same weights.
#include <tapegrad.h>

#include <fmt/format.h>

#include "dist/ddp.h"

int main() {
  tg::dist::Session mpi;                         // MPI_Init ... MPI_Finalize
  tg::nn::Linear model(8, 1);                    // the same model on every rank
  tg::dist::DistributedDataParallel ddp(model);  // checks that, then copies rank 0's parameters
  tg::SGD optimizer(ddp.parameters(), {.lr = 0.05});
  tg::Generator examples(100 + tg::dist::rank());  // this rank's examples
  const tg::Tensor w = tg::ones({8, 1});
  for (int step = 1; step <= 200; ++step) {
    const tg::Tensor x = tg::randn({32, 8}, tg::kF32, tg::kCPU, examples);
    tg::Tensor loss = tg::mean(tg::pow(tg::sub(model.forward(x), tg::matmul(x, w)), 2));
    ddp.backward(loss);                          // gradients averaged over the ranks
    optimizer.step();
    optimizer.zero_grad();
    if (tg::dist::rank() == 0 && step % 50 == 0) fmt::print("step {}: loss {:.5f}\n", step, loss.item());
  }
  ddp.check_parameters_agree("after 200 steps");  // throws unless every rank holds the same weights
  if (tg::dist::rank() == 0) fmt::print("{} ranks agree on the weights\n", tg::dist::world_size());
}
