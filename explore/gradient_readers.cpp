#include "explore/gradient_readers.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/backward.h"

namespace tg::explore {

GradientReaders gradient_readers(const Tensor& loss) {
  GradientReaders readers;
  if (!loss.defined() || !loss.producer()) return readers;
  for (const auto& e : reverse_order_from({loss.producer()}))  // the entries backward runs
    for (const EntryInput& in : e->inputs)
      if (in.requires_grad) readers[in.record.id].push_back(e->tape_position);
  for (auto& [id, positions] : readers) std::sort(positions.begin(), positions.end());
  return readers;
}

std::string contribution_text(const GradientReaders& readers, int64_t tensor_id) {
  const auto it = readers.find(tensor_id);
  if (it == readers.end() || it->second.size() < 2) return "";
  std::vector<std::string> entries;
  for (int64_t p : it->second) entries.push_back(fmt::format("#{}", p));
  return fmt::format("1 of the {} contributions that add up to the gradient, from entries {}", entries.size(),
                     fmt::join(entries, ", "));
}

}  // namespace tg::explore
