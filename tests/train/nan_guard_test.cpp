// The NaN guard: a non-finite loss or gradient stops training with a message naming the step
// and the first op that produced a non-finite value, and writes no checkpoint.
#include <limits>

#include "test_util.h"
#include "train/seq2seq_task.h"
#include "train/sequence_task.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

TEST_CASE("NaN guard: a poisoned weight is traced to the op that used it, the checkpoint is kept") {
  TempDir dir("nan_poison");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 10, config.warmup = 1;
  train::Trainer t(config, {.console = nullptr});
  t.fit(4);  // a good checkpoint at step 4
  const std::string good = test::read_file(t.checkpoint_path());

  // the row of <sep>, which every copy example holds, becomes NaN
  Tensor row = t.task_as<train::SequenceTask>().model().embedding->weight;
  float* w = row.data<float>() + data::kSepId * row.size(1);
  for (int64_t c = 0; c < row.size(1); ++c) w[c] = std::numeric_limits<float>::quiet_NaN();

  CHECK_THROWS_WITH_AS(t.fit(), doctest::Contains("train: step 5: the loss is nan"), Error);
  CHECK_THROWS_WITH_AS(t.fit(),  // the token embeddings and the positions, one op
                       doctest::Contains("the first op to produce a non-finite value is 'embedding_add_positions'"),
                       Error);
  CHECK_THROWS_WITH_AS(t.fit(), doctest::Contains("step 4) is untouched"), Error);
  CHECK(t.step() == 4);
  CHECK(test::read_file(t.checkpoint_path()) == good);
}

TEST_CASE("NaN guard: a seq2seq run's poisoned weight is traced to the op that used it too") {
  TempDir dir("nan_seq2seq");
  train::TrainConfig config = train::seq2seq_defaults();
  config.d_model = 16, config.heads = 2, config.layers = 1, config.ff = 32;
  config.steps = 6, config.batch_size = 8, config.warmup = 1, config.val_examples = 8;
  config.out = dir.str();
  train::Trainer t(config, {.console = nullptr});
  t.fit(2);
  // the row of <bos>, which begins every decoder input, becomes NaN
  Tensor row = t.task_as<train::Seq2SeqTask>().model().embedding->weight;
  float* w = row.data<float>() + data::kBosId * row.size(1);
  for (int64_t c = 0; c < row.size(1); ++c) w[c] = std::numeric_limits<float>::quiet_NaN();

  CHECK_THROWS_WITH_AS(t.fit(), doctest::Contains("train: step 3: the loss is nan"), Error);
  CHECK_THROWS_WITH_AS(t.fit(),  // the token embeddings and the positions, one op
                       doctest::Contains("the first op to produce a non-finite value is 'embedding_add_positions'"),
                       Error);
  CHECK(t.step() == 2);
}

TEST_CASE("NaN guard: a huge learning rate blows up at the second step, and the guard says where") {
  TempDir dir("nan_lr");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 5, config.warmup = 0, config.lr = 1e30;
  train::Trainer t(config, {.console = nullptr, .write_files = false});
  try {
    t.fit();
    FAIL("training with lr 1e30 did not stop");
  } catch (const Error& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.starts_with("train: step 2: "));
    CHECK(message.find("the first op to produce a non-finite value is '") != std::string::npos);
    CHECK(message.find("anomaly: ") != std::string::npos);  // the anomaly check's own message, with the entry
    CHECK(message.find("tape entry #") != std::string::npos);
    CHECK(message.find("no checkpoint had been written") != std::string::npos);
  }
  CHECK(t.step() == 1);
}

TEST_CASE("NaN guard: an update that makes the weights infinite writes no checkpoint, so none is called good") {
  TempDir dir("nan_checkpoint");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  // lr 1e39 is a finite double but infinite as a float32 step: the loss and gradients of step 1
  // are finite, its update is not, and step 1 is when the checkpoint is due
  config.steps = 5, config.warmup = 0, config.lr = 1e39, config.eval_every = 1;
  train::Trainer t(config, {.console = nullptr});
  try {
    t.fit();
    FAIL("training with lr 1e39 did not stop");
  } catch (const Error& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.find(t.checkpoint_path().string() + ": not written: \"") != std::string::npos);
    CHECK(message.find("at step 1: the run has diverged") != std::string::npos);
    CHECK(message.find("last good checkpoint") == std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(t.checkpoint_path()));
}
