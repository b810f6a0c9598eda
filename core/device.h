#pragma once
// Device: where a tensor's storage lives. cpu always; cuda:N when tapegrad is built with CUDA.
#include <string>

namespace tg {

struct Device {
  enum class Kind : unsigned char { cpu, cuda };
  Kind kind = Kind::cpu;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {Kind::cuda, index}; }
  bool is_cpu() const { return kind == Kind::cpu; }
  bool is_cuda() const { return kind == Kind::cuda; }
  bool operator==(const Device&) const = default;
  std::string str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }
};

inline const Device kCPU = Device::cpu();

// True when tapegrad was compiled with its CUDA backend (a GPU may still be absent).
bool cuda_built();
// Number of usable GPUs; 0 when not built with CUDA or when the driver reports none.
int cuda_device_count();

}  // namespace tg
