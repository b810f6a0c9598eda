#pragma once
// tg::dist: the processes of one data-parallel job, on MPI (Open MPI's mpirun, or srun).
//
//   tg::dist::Session mpi;                       // MPI_Init; MPI_Finalize when it goes
//   tg::dist::allreduce(grads, dist::Op::average);
//   if (tg::dist::rank() == 0) save(...);
//
// Started without a launcher (no mpirun) a process is a job of one: world_size() == 1.
// Every call is a collective of all ranks except rank() and world_size(): each rank must make
// the same calls in the same order. A failed call throws tg::Error naming it
// ("dist: MPI_Allreduce of 12 floats failed: ...").
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/device.h"

namespace tg::dist {

// Whether a launcher started this process as part of a job (mpirun or srun set the environment).
bool launched();
void init();      // MPI_Init_thread if not yet; errors are returned (and thrown), not fatal
void finalize();  // MPI_Finalize if init() ran and it has not yet
bool initialized();
int rank();
int world_size();
// This rank's place among the ranks on its machine (MPI_COMM_TYPE_SHARED), 0 when not started.
int local_rank();
// The GPU this rank should train on: cuda:(local_rank() % GPUs), or the CPU without a GPU.
// NCCL (DistributedDataParallel with gradients on a GPU) requires the model there.
Device local_device();

enum class Op { sum, average };
void allreduce(std::span<float> values, Op op = Op::sum);
void allreduce(std::span<double> values, Op op = Op::sum);
void broadcast(std::span<std::byte> bytes, int root = 0);
void broadcast(std::span<float> values, int root = 0);
void broadcast(std::span<double> values, int root = 0);
std::vector<uint32_t> allgather(uint32_t value);  // every rank's value, by rank
void barrier();
// Ends every rank of the job (MPI_Abort): for a rank that failed while the others may be
// waiting for it in a collective.
[[noreturn]] void abort(int exit_code);

// init() now, finalize() when it goes.
class Session {
 public:
  Session() { init(); }
  ~Session() { finalize(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

}  // namespace tg::dist
