#pragma once
// Storage: one allocation on one device, shared by a tensor and all of its views.
// `version` counts in-place writes so that the tape can tell when a saved tensor changed.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/device.h"

namespace tg {

class Storage {
 public:
  // Uninitialised memory. A request the device cannot meet is a tg::Error naming `op` and the
  // bytes asked for; on the CPU, one larger than the machine's memory and swap is refused
  // without asking the system (which could hand out address space it can never back).
  Storage(size_t nbytes, Device device, const char* op = "storage");
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint64_t version() const { return version_; }
  void bump_version() { ++version_; }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  uint64_t version_ = 0;
};

// Raw copies between devices (bytes). Both pointers must be valid on their devices.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);

}  // namespace tg
