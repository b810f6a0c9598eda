#include "data/dataloader.h"
#include "data/tasks.h"
#include "test_util.h"

#include <algorithm>

using namespace tg;
using namespace tg::data;

namespace {

// Examples whose input ids say which example they are: example i has length 1 + i % 4 and
// every input id equal to 10 + i.
std::vector<Example> numbered(int64_t n) {
  std::vector<Example> out;
  for (int64_t i = 0; i < n; ++i) {
    size_t len = static_cast<size_t>(1 + i % 4);
    out.push_back({std::vector<int64_t>(len, 10 + i), std::vector<int64_t>(len, i % 3)});
  }
  return out;
}

// The example indices a batch holds (from the first input id of each row).
std::vector<int64_t> rows_of(const Batch& b) {
  std::vector<int64_t> ids = b.inputs.to_vector<int64_t>(), rows;
  const int64_t T = b.inputs.size(1);
  for (int64_t r = 0; r < b.inputs.size(0); ++r) rows.push_back(ids[r * T] - 10);
  return rows;
}

bool same_batch(const Batch& a, const Batch& b) {
  return a.inputs.shape() == b.inputs.shape() && a.inputs.to_vector<int64_t>() == b.inputs.to_vector<int64_t>() &&
         a.targets.to_vector<int64_t>() == b.targets.to_vector<int64_t>() &&
         a.padding_mask.to_vector<bool>() == b.padding_mask.to_vector<bool>() && a.lengths == b.lengths;
}

}  // namespace

TEST_CASE("dataloader: collate pads to the longest example, hand-worked") {
  Batch b = collate({{{7, 8, 9}, {1, kIgnoreIndex, 2}}, {{5}, {3}}});
  CHECK(b.inputs.shape() == Shape{2, 3});
  CHECK(b.inputs.dtype() == kI64);
  CHECK(b.targets.dtype() == kI64);
  CHECK(b.padding_mask.dtype() == kBool);
  CHECK(b.inputs.to_vector<int64_t>() == std::vector<int64_t>{7, 8, 9, 5, kPadId, kPadId});
  CHECK(b.targets.to_vector<int64_t>() == std::vector<int64_t>{1, kIgnoreIndex, 2, 3, kIgnoreIndex, kIgnoreIndex});
  CHECK(b.padding_mask.to_vector<bool>() == std::vector<bool>{false, false, false, false, true, true});
  CHECK(b.lengths == std::vector<int64_t>{3, 1});

  CHECK_THROWS_WITH_AS(collate({}), doctest::Contains("collate: no examples to batch"), Error);
  CHECK_THROWS_WITH_AS(collate({{{1}, {1}}, {{1, 2}, {1}}}),
                       doctest::Contains("collate: example 1 of the batch has 2 input tokens but 1 targets"), Error);
  CHECK_THROWS_WITH_AS(collate({{{}, {}}}), doctest::Contains("example 0 of the batch is empty"), Error);
  CHECK_THROWS_WITH_AS(collate({{{1}, {-3}}}), doctest::Contains("negative target id -3"), Error);
}

TEST_CASE("dataloader: every epoch visits every example once, in batches of batch_size") {
  DataLoader loader(numbered(10), {.batch_size = 4, .seed = 1});
  CHECK(loader.batches_per_epoch() == 3);
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    std::vector<int64_t> seen;
    for (int64_t i = 0; i < 3; ++i) {
      Batch b = loader.next();
      CHECK(b.inputs.size(0) == (i < 2 ? 4 : 2));  // the last batch is the rest
      std::vector<int64_t> rows = rows_of(b);
      // lengths, padding and targets follow each example
      int64_t T = *std::max_element(b.lengths.begin(), b.lengths.end());
      CHECK(b.inputs.size(1) == T);
      std::vector<bool> pad = b.padding_mask.to_vector<bool>();
      std::vector<int64_t> tgt = b.targets.to_vector<int64_t>();
      for (size_t r = 0; r < rows.size(); ++r) {
        CHECK(b.lengths[r] == 1 + rows[r] % 4);
        for (int64_t t = 0; t < T; ++t) {
          CHECK(pad[r * T + t] == (t >= b.lengths[r]));
          CHECK(tgt[r * T + t] == (t >= b.lengths[r] ? kIgnoreIndex : rows[r] % 3));
        }
      }
      seen.insert(seen.end(), rows.begin(), rows.end());
    }
    CHECK(seen == loader.order(epoch));
    std::sort(seen.begin(), seen.end());
    CHECK(seen == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  }
  CHECK(loader.state() == LoaderState{2, 0});

  DataLoader dropping(numbered(10), {.batch_size = 4, .drop_last = true});
  CHECK(dropping.batches_per_epoch() == 2);
  DataLoader ordered(numbered(5), {.batch_size = 2, .shuffle = false});
  CHECK(ordered.order(3) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(rows_of(ordered.next()) == std::vector<int64_t>{0, 1});
}

TEST_CASE("dataloader: the shuffle depends only on seed and epoch") {
  DataLoader a(numbered(50), {.batch_size = 8, .seed = 3});
  DataLoader b(numbered(50), {.batch_size = 8, .seed = 3});
  DataLoader other(numbered(50), {.batch_size = 8, .seed = 4});
  CHECK(a.order(0) == b.order(0));
  CHECK(a.order(5) == b.order(5));
  CHECK(a.order(0) != a.order(1));      // a new permutation each epoch
  CHECK(a.order(0) != other.order(0));  // and per seed
  std::vector<int64_t> identity(50);
  for (int64_t i = 0; i < 50; ++i) identity[i] = i;
  CHECK(a.order(0) != identity);
  for (int i = 0; i < 10; ++i) CHECK(same_batch(a.next(), b.next()));
  CHECK(same_batch(a.batch(4, 2), b.batch(4, 2)));
}

TEST_CASE("dataloader: a saved state resumes exactly") {
  SequenceTask task(TaskKind::reverse);
  DataLoaderOptions opt{.batch_size = 7, .seed = 9};
  DataLoader first(task.examples(40, 0), opt);  // 6 batches per epoch
  for (int i = 0; i < 8; ++i) first.next();
  LoaderState saved = first.state();
  CHECK(saved == LoaderState{1, 2});
  std::vector<Batch> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(first.next());  // crosses into epoch 2

  DataLoader resumed(task.examples(40, 0), opt);
  resumed.set_state(saved);
  for (const Batch& e : expected) CHECK(same_batch(resumed.next(), e));
  CHECK(resumed.state() == first.state());
  // batch() reads any batch without moving the state
  CHECK(same_batch(resumed.batch(1, 2), expected[0]));
  CHECK(resumed.state() == first.state());

  CHECK_THROWS_WITH_AS(resumed.set_state({0, 6}),
                       doctest::Contains("DataLoader: state (epoch 0, batch 6) does not exist: an epoch has 6 batches"),
                       Error);
  CHECK_THROWS_WITH_AS(resumed.set_state({-1, 0}), doctest::Contains("state (epoch -1, batch 0) does not exist"), Error);
  CHECK_THROWS_WITH_AS(resumed.batch(0, 6), doctest::Contains("batch 6 is out of range"), Error);
  CHECK_THROWS_WITH_AS(resumed.order(-1), doctest::Contains("epoch must be >= 0"), Error);
}

TEST_CASE("dataloader: bad datasets and options") {
  CHECK_THROWS_WITH_AS(DataLoader(numbered(3), {.batch_size = 0}), doctest::Contains("batch_size must be >= 1, got 0"),
                       Error);
  CHECK_THROWS_WITH_AS(DataLoader(numbered(3), {.batch_size = 4, .drop_last = true}),
                       doctest::Contains("DataLoader: 3 examples make no batch of batch_size 4 with drop_last"), Error);
  CHECK_THROWS_WITH_AS(DataLoader(std::vector<Example>{}), doctest::Contains("0 examples make no batch"), Error);
  CHECK_THROWS_WITH_AS(DataLoader(std::shared_ptr<const Dataset>{}), doctest::Contains("the dataset is null"), Error);
  CHECK_THROWS_WITH_AS(DataLoader(std::vector<Example>{{{1, 2}, {1}}}),
                       doctest::Contains("ExampleDataset: example 0 has 2 input tokens but 1 targets"), Error);
}

TEST_CASE("dataloader: batches on the GPU") {
  if (!test::gpu_available_or_skip()) return;
  DataLoader loader(numbered(6), {.batch_size = 3, .device = Device::cuda(0)});
  Batch b = loader.next();
  CHECK(b.inputs.is_cuda());
  CHECK(b.targets.is_cuda());
  CHECK(b.padding_mask.is_cuda());
  CHECK(same_batch(b, collate({numbered(6)[static_cast<size_t>(loader.order(0)[0])],
                               numbered(6)[static_cast<size_t>(loader.order(0)[1])],
                               numbered(6)[static_cast<size_t>(loader.order(0)[2])]})));
}
