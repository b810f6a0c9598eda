#include "ops/common/row_blocks.h"

#include "core/device.h"

namespace tg {

int64_t max_row_blocks() { return cuda_emulated() ? 1024 : 65535; }

}  // namespace tg
