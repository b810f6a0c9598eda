#include "dist/dist.h"

#include <mpi.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::dist {

namespace {

bool finalized = false;

// Throws "dist: <call> failed: <MPI's message>" unless rc is MPI_SUCCESS.
void check(int rc, const std::string& call) {
  if (rc == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, message, &length);
  throw Error("dist", fmt::format("{} failed: {}", call, std::string(message, length)));
}

void require_init(const char* call) {
  if (!initialized()) throw Error("dist", fmt::format("{} before tg::dist::init()", call));
}

template <class T> void allreduce_typed(std::span<T> values, Op op, MPI_Datatype type, const char* name) {
  require_init("allreduce");
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), type, MPI_SUM, MPI_COMM_WORLD),
        fmt::format("MPI_Allreduce of {} {}", values.size(), name));
  if (op == Op::average)
    for (T& v : values) v /= static_cast<T>(world_size());
}

void broadcast_raw(void* data, size_t count, MPI_Datatype type, int root, const char* name) {
  require_init("broadcast");
  if (root < 0 || root >= world_size())
    throw Error("dist", fmt::format("broadcast from rank {}: the job has ranks 0 to {}", root, world_size() - 1));
  check(MPI_Bcast(data, static_cast<int>(count), type, root, MPI_COMM_WORLD),
        fmt::format("MPI_Bcast of {} {} from rank {}", count, name, root));
}

}  // namespace

bool launched() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

bool initialized() {
  int on = 0;
  MPI_Initialized(&on);
  return on && !finalized;
}

void init() {
  if (initialized()) return;
  if (finalized) throw Error("dist", "init() after finalize(): MPI can be started once per process");
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

void finalize() {
  if (!initialized()) return;
  finalized = true;
  MPI_Finalize();
}

int rank() {
  if (!initialized()) return 0;
  int r = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &r), "MPI_Comm_rank");
  return r;
}

int world_size() {
  if (!initialized()) return 1;
  int n = 1;
  check(MPI_Comm_size(MPI_COMM_WORLD, &n), "MPI_Comm_size");
  return n;
}

int local_rank() {
  if (!initialized()) return 0;
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int r = 0;
  const int rc = MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  check(rc, "MPI_Comm_rank");
  return r;
}

Device local_device() {
  const int gpus = cuda_device_count();
  return gpus > 0 ? Device::cuda(local_rank() % gpus) : kCPU;
}

void allreduce(std::span<float> values, Op op) { allreduce_typed(values, op, MPI_FLOAT, "floats"); }
void allreduce(std::span<double> values, Op op) { allreduce_typed(values, op, MPI_DOUBLE, "doubles"); }

void broadcast(std::span<std::byte> bytes, int root) { broadcast_raw(bytes.data(), bytes.size(), MPI_BYTE, root, "bytes"); }
void broadcast(std::span<float> values, int root) { broadcast_raw(values.data(), values.size(), MPI_FLOAT, root, "floats"); }
void broadcast(std::span<double> values, int root) {
  broadcast_raw(values.data(), values.size(), MPI_DOUBLE, root, "doubles");
}

std::vector<uint32_t> allgather(uint32_t value) {
  require_init("allgather");
  std::vector<uint32_t> all(static_cast<size_t>(world_size()));
  check(MPI_Allgather(&value, 1, MPI_UINT32_T, all.data(), 1, MPI_UINT32_T, MPI_COMM_WORLD), "MPI_Allgather");
  return all;
}

void barrier() {
  require_init("barrier");
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void abort(int exit_code) {
  if (initialized()) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

}  // namespace tg::dist
