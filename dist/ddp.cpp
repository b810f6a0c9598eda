#include "dist/ddp.h"

#include <mpi.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "core/backward.h"
#include "core/copy.h"
#include "core/cuda/cuda_runtime.h"
#include "core/factories.h"
#include "core/storage.h"
#include "ops/mul/mul.h"

namespace tg::dist {

namespace {

const char* const kWho = "DistributedDataParallel";

// "w (4,5) float32"
std::string describe(const NamedParameter& p) {
  return fmt::format("{} {} {}", p.name, shape_str(p.tensor.shape()), dtype_name(p.tensor.dtype()));
}

template <class T> void scale(T* x, int64_t n, T factor) {
  for (int64_t i = 0; i < n; ++i) x[i] *= factor;
}

}  // namespace

const char* gradient_path_name(GradientPath path) {
  switch (path) {
    case GradientPath::cpu_mpi: return "cpu_mpi";
    case GradientPath::host_mpi: return "host_mpi";
    case GradientPath::nccl: return "nccl";
  }
  return "?";
}

// Gradients of some parameters, one dtype, laid out one after another in `buffer` (1-D, on
// the parameters' device). host_mpi: `host` holds the bucket's bytes for MPI.
struct DistributedDataParallel::Bucket {
  // Host memory from the CUDA backend (cuda_host_alloc: page-locked with a real GPU), freed when it goes.
  struct HostBuffer {
    void* data = nullptr;
    HostBuffer() = default;
    ~HostBuffer() { cuda_host_free(data); }
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
  };

  std::vector<size_t> params;
  Tensor buffer;
  HostBuffer host;
  size_t waiting = 0;  // gradients not yet final in this backward
  MPI_Request request = MPI_REQUEST_NULL;

  size_t bytes() const { return static_cast<size_t>(buffer.numel()) * element_size(buffer.dtype()); }
  void* mpi_data() const { return host.data ? host.data : buffer.raw_data(); }
};

DistributedDataParallel::DistributedDataParallel(const nn::Module& model, DdpOptions options)
    : DistributedDataParallel(
          [&] {
            std::vector<NamedParameter> params;
            for (auto& [name, t] : model.named_parameters()) params.push_back({name, t});
            return params;
          }(),
          options) {}

DistributedDataParallel::DistributedDataParallel(std::vector<NamedParameter> parameters, DdpOptions options)
    : params_(std::move(parameters)), options_(options) {
  if (!initialized()) throw Error(kWho, "MPI is not started: create a tg::dist::Session (or call tg::dist::init()) first");
  if (options_.bucket_bytes < 1)
    throw Error(kWho, fmt::format("bucket_bytes must be >= 1, got {}", options_.bucket_bytes));
  for (const NamedParameter& p : params_) {
    check_defined(p.tensor, kWho, p.name.c_str());
    if (!is_floating(p.tensor.dtype()) || !p.tensor.requires_grad())
      throw Error(kWho, fmt::format("parameter {} must be a float32 or float64 tensor that requires grad, got {} on {}",
                                    p.name, p.tensor.describe(), p.tensor.device().str()));
  }
  check_devices();
  // Buckets, last parameter first; a new one when the dtype changes or the size would pass bucket_bytes.
  const size_t n = params_.size();
  bucket_of_.resize(n), offset_of_.resize(n), uses_left_.resize(n);
  std::vector<int64_t> sizes;
  for (size_t i = n; i-- > 0;) {
    const Tensor& t = params_[i].tensor;
    const int64_t bytes = t.numel() * static_cast<int64_t>(element_size(t.dtype()));
    const bool new_bucket = buckets_.empty() || params_[buckets_.back()->params.front()].tensor.dtype() != t.dtype() ||
                            (sizes.back() > 0 && sizes.back() + bytes > options_.bucket_bytes);
    if (new_bucket) buckets_.push_back(std::make_unique<Bucket>()), sizes.push_back(0);
    bucket_of_[i] = buckets_.size() - 1;
    offset_of_[i] = sizes.back() / static_cast<int64_t>(element_size(t.dtype()));
    buckets_.back()->params.push_back(i);
    sizes.back() += bytes;
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const DType dtype = params_[buckets_[b]->params.front()].tensor.dtype();
    if (sizes[b] > std::numeric_limits<int>::max())  // MPI counts are ints (broadcast_parameters sends bytes)
      throw Error(kWho, fmt::format("the bucket of parameter {} has {} bytes, more than an MPI count holds ({}): "
                                    "lower bucket_bytes ({})", params_[buckets_[b]->params.front()].name, sizes[b],
                                    std::numeric_limits<int>::max(), options_.bucket_bytes));
    buckets_[b]->buffer = zeros({sizes[b] / static_cast<int64_t>(element_size(dtype))}, dtype, device_);
    if (path_ == GradientPath::host_mpi) buckets_[b]->host.data = cuda_host_alloc(static_cast<size_t>(sizes[b]));
  }
  check_same_model();
  broadcast_parameters();
  if (path_ == GradientPath::nccl) nccl_ = std::make_unique<NcclCommunicator>(device_);
  for (size_t i = 0; i < n; ++i)
    hooks_.push_back(params_[i].tensor.register_hook([this, i](const Tensor& grad) {
      on_gradient(i, grad);
      return Tensor();  // the gradient goes on into .grad() unchanged
    }));
}

DistributedDataParallel::~DistributedDataParallel() {
  if (initialized())
    for (auto& b : buckets_) MPI_Wait(&b->request, MPI_STATUS_IGNORE);
  for (HookHandle& h : hooks_) h.remove();
}

// One device for every parameter; the path follows from it, and every rank must take the same
// one (they make different collective calls).
void DistributedDataParallel::check_devices() {
  device_ = params_.empty() ? kCPU : params_.front().tensor.device();
  for (const NamedParameter& p : params_)
    if (p.tensor.device() != device_)
      throw Error(kWho, fmt::format("every parameter must be on one device, but {} is on {} and {} on {}: move the "
                                    "whole model to the CPU or to this rank's GPU (tg::dist::local_device())",
                                    params_.front().name, device_.str(), p.name, p.tensor.device().str()));
  path_ = device_.is_cpu() ? GradientPath::cpu_mpi
          : nccl_built() && options_.use_nccl ? GradientPath::nccl
                                               : GradientPath::host_mpi;
  const std::vector<uint32_t> paths = allgather(static_cast<uint32_t>(path_));
  for (size_t r = 0; r < paths.size(); ++r)
    if (paths[r] != paths[0])
      throw Error(kWho, fmt::format("rank {}: every rank must keep its parameters on the same kind of device, but "
                                    "rank 0 reduces gradients by {} and rank {} by {}",
                                    rank(), gradient_path_name(static_cast<GradientPath>(paths[0])), r,
                                    gradient_path_name(static_cast<GradientPath>(paths[r]))));
  if (path_ != GradientPath::nccl) return;
  const int local = local_rank();  // a collective: before any rank may throw
  const Device mine = local_device();
  const std::vector<uint32_t> placed = allgather(device_ == mine ? 1 : 0);  // every rank learns of a misplaced one
  std::vector<size_t> misplaced;
  for (size_t r = 0; r < placed.size(); ++r)
    if (!placed[r]) misplaced.push_back(r);
  if (misplaced.empty()) return;
  throw Error(kWho, fmt::format("rank {}: with NCCL each rank trains on its own GPU (tg::dist::local_device(): "
                                "cuda:(local rank % GPUs)), but rank(s) {} have their parameters elsewhere; here the "
                                "GPU is {} (local rank {} of a machine with {} GPU(s)) and the parameters are on {}",
                                rank(), fmt::join(misplaced, ", "), mine.str(), local, cuda_device_count(),
                                device_.str()));
}

// Every rank compares its parameters' names, shapes and dtypes with rank 0's; all of them learn
// which ranks differ, so that each throws rather than some waiting in the next collective.
void DistributedDataParallel::check_same_model() const {
  std::vector<std::string> mine;
  for (const NamedParameter& p : params_) mine.push_back(describe(p));
  const std::string text = fmt::format("{}", fmt::join(mine, "\n"));
  uint64_t size = text.size();
  broadcast(std::as_writable_bytes(std::span(&size, 1)));
  std::string rank0 = rank() == 0 ? text : std::string(size, '\0');
  broadcast(std::as_writable_bytes(std::span(rank0.data(), rank0.size())));

  const std::vector<uint32_t> same = allgather(text == rank0 ? 1 : 0);
  std::vector<size_t> differing;
  for (size_t r = 0; r < same.size(); ++r)
    if (!same[r]) differing.push_back(r);
  if (differing.empty()) return;
  std::string here;
  if (text != rank0) {  // the first parameter that differs
    std::vector<std::string> theirs;
    for (size_t at = 0; at <= rank0.size() && !rank0.empty();) {
      const size_t end = std::min(rank0.find('\n', at), rank0.size());
      theirs.push_back(rank0.substr(at, end - at));
      at = end + 1;
    }
    size_t i = 0;
    while (i < mine.size() && i < theirs.size() && mine[i] == theirs[i]) ++i;
    here = fmt::format("; parameter {} is {} here and {} on rank 0 ({} parameters here, {} there)", i,
                       i < mine.size() ? mine[i] : "missing", i < theirs.size() ? theirs[i] : "missing", mine.size(),
                       theirs.size());
  }
  throw Error(kWho, fmt::format("rank {}: every rank must build the same model, but the parameters (names, shapes, "
                                "dtypes) of rank(s) {} differ from rank 0's{}",
                                rank(), fmt::join(differing, ", "), here));
}

void DistributedDataParallel::broadcast_parameters() {
  for (const NamedParameter& p : params_) {
    if (!p.tensor.is_contiguous()) throw Error(kWho, fmt::format("parameter {} is not contiguous", p.name));
    Tensor host = to_device_copy(p.tensor, kCPU);  // the parameter itself on the CPU
    broadcast(std::span(static_cast<std::byte*>(host.raw_data()), static_cast<size_t>(host.numel()) * element_size(host.dtype())));
    if (p.tensor.is_cuda()) copy_(p.tensor, host);
  }
}

void DistributedDataParallel::backward(const Tensor& loss, BackwardOptions options) {
  if (!options.sync) {
    if (loss.defined()) loss.backward();
    return;
  }
  // How many gradients each parameter gets in this backward: one per use on the tape.
  std::unordered_map<const TensorImpl*, size_t> index;
  for (size_t i = 0; i < params_.size(); ++i) index[params_[i].tensor.impl()] = i, uses_left_[i] = 0;
  if (loss.defined())
    for (const auto& entry : graph_entries(loss))
      for (const EntryInput& in : entry->inputs)
        if (auto it = index.find(in.leaf.get()); in.leaf && in.requires_grad && it != index.end()) ++uses_left_[it->second];

  events_.clear();
  next_bucket_ = 0;
  for (auto& b : buckets_) b->waiting = b->params.size();
  armed_ = true;
  events_.push_back({DdpEvent::backward_start});
  for (size_t i = 0; i < params_.size(); ++i)  // unused here: its gradient is final already
    if (uses_left_[i] == 0) stage(i, params_[i].tensor.grad());
  start_ready_buckets();
  try {
    if (loss.defined()) loss.backward();
  } catch (...) {
    armed_ = false;
    throw;
  }
  events_.push_back({DdpEvent::backward_end});
  armed_ = false;
  // A rule that returned no gradient for a use leaves a count above 0: final now.
  for (size_t i = 0; i < params_.size(); ++i)
    if (uses_left_[i] > 0) uses_left_[i] = 0, stage(i, params_[i].tensor.grad());
  start_ready_buckets();
  finish();
}

// The hook: `grad` is about to be added into .grad(); after the last one the sum is final.
void DistributedDataParallel::on_gradient(size_t param, const Tensor& grad) {
  if (!armed_ || uses_left_[param] == 0 || --uses_left_[param] > 0) return;
  const Tensor so_far = params_[param].tensor.grad();
  Tensor final_grad = grad;
  if (so_far.defined()) {
    final_grad = contiguous_copy(so_far);
    add_into_(final_grad, grad);
  }
  stage(param, final_grad);
  start_ready_buckets();
  for (size_t b = 0; b < next_bucket_; ++b) {  // lets MPI move the started reductions on
    int done = 0;
    MPI_Test(&buckets_[b]->request, &done, MPI_STATUS_IGNORE);
  }
}

// Copies a final gradient (undefined: none, zeros) into its bucket.
void DistributedDataParallel::stage(size_t param, const Tensor& final_grad) {
  const Tensor& p = params_[param].tensor;
  Bucket& bucket = *buckets_[bucket_of_[param]];
  Tensor slot = make_view(bucket.buffer, p.shape(), contiguous_strides(p.shape()), offset_of_[param]);
  if (final_grad.defined())
    copy_(slot, final_grad);
  else
    fill_(slot, 0);
  --bucket.waiting;
}

void DistributedDataParallel::start_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_]->waiting == 0) {
    Bucket& b = *buckets_[next_bucket_];
    events_.push_back({DdpEvent::allreduce_start, static_cast<int>(next_bucket_)});
    if (path_ == GradientPath::nccl) {
      nccl_->allreduce_sum(b.buffer);
      ++next_bucket_;
      continue;
    }
    if (path_ == GradientPath::host_mpi) copy_bytes(b.host.data, kCPU, b.buffer.raw_data(), device_, b.bytes());
    const MPI_Datatype type = b.buffer.dtype() == DType::f32 ? MPI_FLOAT : MPI_DOUBLE;
    const int rc = MPI_Iallreduce(MPI_IN_PLACE, b.mpi_data(), static_cast<int>(b.buffer.numel()), type, MPI_SUM,
                                  MPI_COMM_WORLD, &b.request);
    if (rc != MPI_SUCCESS)
      throw Error(kWho, fmt::format("MPI_Iallreduce of bucket {} ({} values) failed (MPI error {})", next_bucket_,
                                    b.buffer.numel(), rc));
    ++next_bucket_;
  }
}

// Waits for every bucket in order, averages it and writes the reduced gradients into .grad().
// nccl: nothing to wait for on the host (the GPU runs the reduction before the kernels below).
void DistributedDataParallel::finish() {
  ++synced_;
  const double n = world_size();
  const bool average = options_.reduce == Op::average;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = *buckets_[b];
    Tensor reduced = bucket.buffer;
    if (path_ == GradientPath::nccl) {
      nccl_->check_async_error();
      if (average) reduced = mul(bucket.buffer, 1 / n);
    } else {
      const auto start = std::chrono::steady_clock::now();
      const int rc = MPI_Wait(&bucket.request, MPI_STATUS_IGNORE);
      wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (rc != MPI_SUCCESS) throw Error(kWho, fmt::format("MPI_Wait for bucket {} failed (MPI error {})", b, rc));
      if (average && bucket.buffer.dtype() == DType::f32)
        scale(static_cast<float*>(bucket.mpi_data()), bucket.buffer.numel(), static_cast<float>(1 / n));
      else if (average)
        scale(static_cast<double*>(bucket.mpi_data()), bucket.buffer.numel(), 1 / n);
      if (path_ == GradientPath::host_mpi)
        copy_bytes(bucket.buffer.raw_data(), device_, bucket.host.data, kCPU, bucket.bytes());
    }
    events_.push_back({DdpEvent::allreduce_done, static_cast<int>(b)});
    for (size_t i : bucket.params) {
      TensorImpl& p = *params_[i].tensor.impl();
      Tensor slot = make_view(reduced, p.shape, contiguous_strides(p.shape), offset_of_[i]);
      if (p.grad) copy_(Tensor(p.grad), slot);
      else p.grad = contiguous_copy(slot).impl_ptr();
    }
  }
}

uint32_t DistributedDataParallel::parameters_hash() const {
  uLong crc = crc32_z(0, nullptr, 0);
  for (const NamedParameter& p : params_) {
    const Tensor t = to_device_copy(contiguous_copy(p.tensor), kCPU);
    crc = crc32_z(crc, static_cast<const Bytef*>(t.raw_data()), static_cast<size_t>(t.numel()) * element_size(t.dtype()));
  }
  return static_cast<uint32_t>(crc);
}

void DistributedDataParallel::check_parameters_agree(const std::string& when) {
  const std::vector<uint32_t> hashes = allgather(parameters_hash());
  std::vector<std::string> differing;
  for (size_t r = 1; r < hashes.size(); ++r)
    if (hashes[r] != hashes[0]) differing.push_back(fmt::format("rank {} ({:08x})", r, hashes[r]));
  if (!differing.empty())
    throw Error(kWho, fmt::format("the ranks' parameters diverged {}: CRC-32 {:08x} on rank 0, but {}; every rank "
                                  "must take the same step (same data order, same reduced gradients)",
                                  when, hashes[0], fmt::join(differing, ", ")));
}

}  // namespace tg::dist
