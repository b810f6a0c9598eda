// The CUDA emulator itself (built with TAPEGRAD_CUDA=EMULATE only): the thread and block
// indices, __syncthreads and warp shuffles mean what they mean on a GPU, and each rule it
// claims to check (include/cuda_runtime.h) fails a launch or a call with a message. Kernels
// here are launched the way rewrite_launches.cmake rewrites `kernel<<<grid, block>>>(args)`.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

// A GPU copy of `host`; the block is freed with the object.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  size_t n;
  explicit DeviceArray(const std::vector<T>& host) : n(host.size()) {
    REQUIRE(cudaMalloc(&ptr, n * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  ~DeviceArray() { cudaFree(ptr); }
  std::vector<T> to_host() const {
    std::vector<T> host(n);
    REQUIRE(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }
};

// The launch's error and its text (cudaGetLastError, then cudaGetErrorString).
std::pair<cudaError_t, std::string> launch_result() {
  const cudaError_t error = cudaGetLastError();
  return {error, cudaGetErrorString(error)};
}

void write_global_index(int* out) {
  const unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  out[block * blockDim.x * blockDim.y * blockDim.z + thread] = static_cast<int>(block * 1000 + thread);
}

// Reverses a block's values through shared memory; `sync` = false leaves out the barrier.
void reverse_block(int* data, bool sync) {
  __shared__ int tile[64];
  const unsigned t = threadIdx.x;
  tile[t] = data[t];
  if (sync) __syncthreads();
  data[t] = tile[blockDim.x - 1 - t];
}

void barrier_in_half_the_block(int* data) {
  if (threadIdx.x < 16) __syncthreads();
  data[threadIdx.x] = 1;
}

void warp_sums(double* data) {
  double x = data[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  data[threadIdx.x] = __shfl_sync(0xffffffffu, x, 0) + (threadIdx.x % 32 == 0 ? 0.5 : 0.0);
}

void shuffle_after_lane_returned(double* data) {
  if (threadIdx.x == 5) return;
  data[threadIdx.x] = __shfl_sync(0xffffffffu, data[threadIdx.x], 0);
}

void increment(int* data) { atomicAdd(data, 1); }

// Runs `body` in a child process; returns its stderr, and whether it was killed by a signal.
template <class Body>
std::pair<std::string, bool> in_child(Body body) {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  std::fflush(stdout);  // or the child writes out what the parent has buffered
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The emulator's handler writes to stderr, then hands the fault to doctest's, which reports
    // to stdout (not wanted here) and dies of it.
    dup2(pipe_fds[1], STDERR_FILENO);
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(2);
    close(pipe_fds[0]);
    body();
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string err;
  char buffer[512];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) err.append(buffer, static_cast<size_t>(got));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {err, WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV};
}

}  // namespace

TEST_CASE("cuda emulator: every thread of a 3-D block in a 2-D grid runs once with its own indices") {
  DeviceArray<int> out(std::vector<int>(6 * 8, -1));
  tg::emu::launch("write_global_index", [&](auto... a) { write_global_index(a...); }, dim3(3, 2), dim3(2, 2, 2))(out.ptr);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> got = out.to_host();
  for (int block = 0; block < 6; ++block)
    for (int thread = 0; thread < 8; ++thread) CHECK(got[static_cast<size_t>(block * 8 + thread)] == block * 1000 + thread);
}

TEST_CASE("cuda emulator: __syncthreads orders shared memory, and a missing one shows") {
  std::vector<int> values(64);
  std::iota(values.begin(), values.end(), 0);
  DeviceArray<int> data(values);
  tg::emu::launch("reverse_block", [&](auto... a) { reverse_block(a...); }, 1, 64)(data.ptr, true);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> reversed(values.rbegin(), values.rend());
  CHECK(data.to_host() == reversed);
  // Without the barrier thread 0 reads tile[63] before thread 63 has written it (it still holds
  // the last launch's value), and so on for the first half of the block.
  for (int& v : values) v += 100;
  DeviceArray<int> racy(values);
  tg::emu::launch("reverse_block", [&](auto... a) { reverse_block(a...); }, 1, 64)(racy.ptr, false);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> got = racy.to_host();
  CHECK(got[0] == 63);
  CHECK(got[63] == 100);
}

TEST_CASE("cuda emulator: a __syncthreads that part of the block skips fails the launch") {
  DeviceArray<int> data(std::vector<int>(32, 0));
  tg::emu::launch("barrier_in_half_the_block", [&](auto... a) { barrier_in_half_the_block(a...); }, 2, 32)(data.ptr);
  const auto [error, text] = launch_result();
  CHECK(error == cudaErrorLaunchFailure);
  CHECK(text.find("kernel barrier_in_half_the_block: block (0,0,0): __syncthreads reached by 16 of 32 threads: "
                  "thread (16,0,0) had returned") != std::string::npos);
}

TEST_CASE("cuda emulator: warp shuffles exchange values within each warp") {
  std::vector<double> values(64);
  std::iota(values.begin(), values.end(), 0.0);
  DeviceArray<double> data(values);
  tg::emu::launch("warp_sums", [&](auto... a) { warp_sums(a...); }, 1, 64)(data.ptr);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<double> got = data.to_host();
  for (size_t i = 0; i < 64; ++i) {
    const double warp_total = i < 32 ? 496.0 : 1520.0;  // 0+...+31, 32+...+63
    CHECK(got[i] == warp_total + (i % 32 == 0 ? 0.5 : 0.0));
  }
}

TEST_CASE("cuda emulator: a shuffle whose mask names a lane that returned fails the launch") {
  DeviceArray<double> data(std::vector<double>(32, 1.0));
  tg::emu::launch("shuffle_after_lane_returned", [&](auto... a) { shuffle_after_lane_returned(a...); }, 1, 32)(data.ptr);
  const auto [error, text] = launch_result();
  CHECK(error == cudaErrorLaunchFailure);
  CHECK(text.find("warp shuffle: thread (0,0,0) waits for thread (5,0,0), which returned") != std::string::npos);
}

TEST_CASE("cuda emulator: atomicAdd from every thread of every block") {
  DeviceArray<int> counter(std::vector<int>{0});
  tg::emu::launch("increment", [&](auto... a) { increment(a...); }, 7, 96)(counter.ptr);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(counter.to_host()[0] == 7 * 96);
}

TEST_CASE("cuda emulator: launches with a host pointer or a bad configuration fail, and the error is not sticky") {
  std::vector<int> host(32);
  tg::emu::launch("increment", [&](auto... a) { increment(a...); }, 1, 32)(host.data());
  auto [error, text] = launch_result();
  CHECK(error == cudaErrorLaunchFailure);
  CHECK(text == "kernel increment: argument 0 is a pointer to host memory");
  CHECK(host[0] == 0);  // the kernel did not run
  DeviceArray<int> counter(std::vector<int>{0});
  tg::emu::launch("increment", [&](auto... a) { increment(a...); }, 1, 2048)(counter.ptr);
  std::tie(error, text) = launch_result();
  CHECK(error == cudaErrorInvalidConfiguration);
  CHECK(text == "kernel increment: invalid launch configuration: grid (1,1,1), block (2048,1,1)");
  tg::emu::launch("increment", [&](auto... a) { increment(a...); }, 0, 32)(counter.ptr);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(counter.to_host()[0] == 0);
}

TEST_CASE("cuda emulator: cudaMalloc gives garbage, and copies check their direction and bounds") {
  float* ptr = nullptr;
  REQUIRE(cudaMalloc(&ptr, 4 * sizeof(float)) == cudaSuccess);
  std::vector<float> host(4, 0.0f);
  REQUIRE(cudaMemcpy(host.data(), ptr, sizeof(float) * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(std::isnan(host[0]));  // the 0xFF bytes a fresh block is filled with
  CHECK(cudaMemcpy(ptr, host.data(), sizeof(float) * 4, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)).find("(host memory)") != std::string::npos);
  CHECK(cudaMemcpy(ptr, host.data(), sizeof(float) * 5, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemset(ptr + 1, 0, sizeof(float) * 4) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  REQUIRE(cudaFree(ptr) == cudaSuccess);
  CHECK(cudaFree(ptr) == cudaErrorInvalidValue);  // twice
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)).find("freed") != std::string::npos);
  CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice);
  cudaGetLastError();
}

TEST_CASE("cuda emulator: host code that reads GPU memory, and a kernel past its block, stop with a message") {
  DeviceArray<int> first(std::vector<int>{0});  // the emulator's SIGSEGV handler is in place before the fork
  const auto [host_read, host_killed] = in_child([] {
    float* ptr = nullptr;
    if (cudaMalloc(&ptr, sizeof(float)) != cudaSuccess) _exit(3);
    volatile float x = *ptr;
    (void)x;
  });
  CHECK(host_killed);
  CHECK(host_read.find("CUDA emulator: host code touched GPU memory at") != std::string::npos);
  CHECK(host_read.find("byte 0 of a live 4-byte GPU block") != std::string::npos);
  const auto [past_end, past_end_killed] = in_child([] {
    int* ptr = nullptr;
    if (cudaMalloc(&ptr, 4096) != cudaSuccess) _exit(3);
    tg::emu::launch("write_global_index", [&](auto... a) { write_global_index(a...); }, 2, 1024)(ptr);
  });
  CHECK(past_end_killed);
  CHECK(past_end.find("CUDA emulator: write_global_index touched") != std::string::npos);
  CHECK(past_end.find("outside every live GPU block") != std::string::npos);
  // A block a kernel opened by touching it is closed again when the launch ends.
  const auto [after_kernel, after_kernel_killed] = in_child([] {
    int* ptr = nullptr;
    if (cudaMalloc(&ptr, 4 * sizeof(int)) != cudaSuccess) _exit(3);
    tg::emu::launch("write_global_index", [&](auto... a) { write_global_index(a...); }, 1, 4)(ptr);
    if (cudaGetLastError() != cudaSuccess) _exit(4);
    volatile int x = ptr[3];
    (void)x;
  });
  CHECK(after_kernel_killed);
  CHECK(after_kernel.find("CUDA emulator: host code touched GPU memory at") != std::string::npos);
  CHECK(after_kernel.find("byte 12 of a live 16-byte GPU block") != std::string::npos);
}

TEST_CASE("cuda emulator: cuBLAS gemm in column-major order, and its argument checks") {
  cublasHandle_t handle = nullptr;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  // Column-major A (2x3) = [1 2 3; 4 5 6], B (3x2) = [1 0; 0 1; 1 1]: A B = [4 5; 10 11].
  DeviceArray<double> a({1, 4, 2, 5, 3, 6}), b({1, 0, 1, 0, 1, 1}), c(std::vector<double>(4, NAN));
  const double one = 1, zero = 0;
  REQUIRE(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.ptr, 2, 6, b.ptr, 3, 6, &zero,
                                    c.ptr, 2, 4, 1) == CUBLAS_STATUS_SUCCESS);
  CHECK(c.to_host() == std::vector<double>{4, 10, 5, 11});  // beta = 0: the NaNs in C are not read
  // A^T as stored (3x2, lda 3) read transposed gives the same A.
  DeviceArray<double> at({1, 2, 3, 4, 5, 6});
  REQUIRE(cublasDgemmStridedBatched(handle, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, 3, &one, at.ptr, 3, 6, b.ptr, 3, 6, &one,
                                    c.ptr, 2, 4, 1) == CUBLAS_STATUS_SUCCESS);
  CHECK(c.to_host() == std::vector<double>{8, 20, 10, 22});  // beta = 1 adds to C
  CHECK(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.ptr, 1, 6, b.ptr, 3, 6, &zero,
                                  c.ptr, 2, 4, 1) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(std::string(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE)).find("ldA = 1 < max(1, 2)") != std::string::npos);
  std::vector<double> host_c(4);
  CHECK(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.ptr, 2, 6, b.ptr, 3, 6, &zero,
                                  host_c.data(), 2, 4, 1) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(std::string(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE)).find("C at") != std::string::npos);
  // A and B broadcast over a batch of 2 (stride 0), but the second C runs past its block.
  CHECK(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, a.ptr, 2, 0, b.ptr, 3, 0, &zero,
                                  c.ptr, 2, 4, 2) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(std::string(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE)).find("C at") != std::string::npos);
  cublasDestroy(handle);
}
