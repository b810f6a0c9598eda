#include "data/metrics.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;

TEST_CASE("metrics: token accuracy and exact match, hand-worked") {
  constexpr int64_t I = kIgnoreIndex;
  // row 0: scored 3, correct 3 -> exact
  // row 1: scored 2, correct 1
  // row 2: nothing scored -> counts for neither
  // row 3: scored 1, correct 1 -> exact (the unscored position's prediction does not matter)
  Tensor targets = tensor_i64({1, 2, 3, I, 4, I, 5, I, I, I, I, I, I, 6, I, I}, {4, 4});
  Tensor predictions = tensor_i64({1, 2, 3, 0, 4, 0, 0, 0, 7, 7, 7, 7, 9, 6, 9, 9}, {4, 4});
  Accuracy acc = accuracy(predictions, targets);
  CHECK(acc.scored_tokens == 6);
  CHECK(acc.correct_tokens == 5);
  CHECK(acc.scored_sequences == 3);
  CHECK(acc.correct_sequences == 2);
  CHECK(acc.token_accuracy() == doctest::Approx(5.0 / 6));
  CHECK(acc.exact_match() == doctest::Approx(2.0 / 3));

  // Summed over batches with +=; a (B,NH,T)-like leading shape is just more sequences.
  acc += accuracy(tensor_i64({0, 1}, {1, 1, 2}), tensor_i64({0, 0}, {1, 1, 2}));
  CHECK(acc.scored_tokens == 8);
  CHECK(acc.correct_tokens == 6);
  CHECK(acc.scored_sequences == 4);
  CHECK(acc.correct_sequences == 2);
  // A non-contiguous view: the transpose of [[1,2],[3,4]] is [[1,3],[2,4]]
  Tensor t = tensor_i64({1, 2, 3, 4}, {2, 2});
  Accuracy tr = accuracy(make_view(t, {2, 2}, {1, 2}, 0), tensor_i64({1, 3, 0, 4}, {2, 2}));
  CHECK(tr.correct_tokens == 3);
  CHECK(tr.correct_sequences == 1);

  Accuracy none = accuracy(tensor_i64({1}, {1, 1}), tensor_i64({I}, {1, 1}));
  CHECK(none.token_accuracy() == 0);
  CHECK(none.exact_match() == 0);
}

TEST_CASE("metrics: unscored classes leave accuracy and exact match, but not the labelled count") {
  constexpr int64_t I = kIgnoreIndex;
  // class 9 is a "$" filler: its positions are wrong here but not scored
  // row 0: 1 2 $ -> scored 2, correct 2, exact     row 1: $ $ -> nothing scored
  // row 2: 3 $ I -> scored 1, correct 0
  Tensor targets = tensor_i64({1, 2, 9, 9, 9, I, 3, 9, I}, {3, 3});
  Tensor predictions = tensor_i64({1, 2, 0, 0, 0, 0, 4, 0, 0}, {3, 3});
  const Accuracy acc = accuracy(predictions, targets, kIgnoreIndex, {9});
  CHECK(acc.scored_tokens == 3);
  CHECK(acc.correct_tokens == 2);
  CHECK(acc.scored_sequences == 2);
  CHECK(acc.correct_sequences == 1);
  CHECK(acc.labelled_tokens == 7);
  const Accuracy all = accuracy(predictions, targets);
  CHECK(all.scored_tokens == 7);
  CHECK(all.labelled_tokens == 7);
  CHECK(all.correct_sequences == 0);
}

TEST_CASE("metrics: bad arguments") {
  Tensor i = tensor_i64({1, 2}, {1, 2});
  CHECK_THROWS_WITH_AS(accuracy(tensor({1, 2}, {1, 2}), i), doctest::Contains("accuracy: predictions and targets must be int64"),
                       Error);
  CHECK_THROWS_WITH_AS(accuracy(i, tensor_i64({1, 2}, {2, 1})),
                       doctest::Contains("accuracy: predictions and targets must have one shape of dim >= 1, got (1,2) and (2,1)"),
                       Error);
  CHECK_THROWS_WITH_AS(accuracy(Tensor(), i), doctest::Contains("accuracy"), Error);
}
