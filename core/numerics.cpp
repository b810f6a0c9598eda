#include "core/numerics.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

namespace {
thread_local int64_t thread_numerics = kLatestNumerics;
}  // namespace

int64_t numerics() { return thread_numerics; }

void check_numerics(int64_t version, const char* who, const char* what) {
  if (version < kFirstNumerics || version > kLatestNumerics)
    throw Error(who, fmt::format("{} must be a numerics version in [{}, {}], got {}", what, kFirstNumerics,
                                 kLatestNumerics, version));
}

NumericsGuard::NumericsGuard(int64_t version) : previous_(thread_numerics) {
  check_numerics(version, "numerics", "the version");
  thread_numerics = version;
}

NumericsGuard::~NumericsGuard() { thread_numerics = previous_; }

}  // namespace tg
