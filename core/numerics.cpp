#include "core/numerics.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

namespace {
thread_local int64_t thread_numerics = kLatestNumerics;
}  // namespace

int64_t numerics() { return thread_numerics; }

NumericsGuard::NumericsGuard(int64_t version) : previous_(thread_numerics) {
  if (version < kFirstNumerics || version > kLatestNumerics)
    throw Error("numerics", fmt::format("the version must be in [{}, {}], got {}", kFirstNumerics, kLatestNumerics,
                                        version));
  thread_numerics = version;
}

NumericsGuard::~NumericsGuard() { thread_numerics = previous_; }

}  // namespace tg
