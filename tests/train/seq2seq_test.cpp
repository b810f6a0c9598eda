// The encoder-decoder (arch seq2seq): teacher-forcing batches checked by hand, the model's masks,
// its parameter count, the training pairs, decoding (greedy, beam search) and exact resume.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/rng.h"
#include "ops/slice/slice.h"
#include "test_util.h"
#include "train/beam_search.h"
#include "train/run_data.h"
#include "train/seq2seq_data.h"
#include "train/seq2seq_decode.h"
#include "train/seq2seq_model.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;
using train::Hypothesis;
using train::SearchLimits;

namespace {

train::ModelConfig tiny_model(int64_t vocab, int64_t max_len) {
  return {.vocab_size = vocab, .num_classes = vocab, .max_len = max_len, .d_model = 16, .heads = 2, .layers = 2,
          .ff = 32, .dropout = 0, .causal = false, .arch = "seq2seq", .tie_weights = false};
}

std::vector<float> float_values(const Tensor& t) { return t.to_vector<float>(); }

// Log-probabilities by prefix, -infinity for a token not listed. Tokens: 0 = eos, 1 = A, 2 = B.
train::NextTokenLogProbs table_scorer() {
  const double none = -std::numeric_limits<double>::infinity();
  return [none](const std::vector<std::vector<int64_t>>& prefixes) {
    std::vector<std::vector<double>> rows;
    for (const auto& p : prefixes) {
      std::vector<double> row;
      if (p.empty()) row = {std::log(0.05), std::log(0.55), std::log(0.40)};
      else if (p == std::vector<int64_t>{1}) row = {std::log(0.30), std::log(0.36), std::log(0.34)};
      else if (p == std::vector<int64_t>{2}) row = {std::log(0.95), std::log(0.05), none};
      else row = {0.0, none, none};  // after two tokens only eos
      rows.push_back(row);
    }
    return rows;
  };
}

}  // namespace

TEST_CASE("seq2seq batch: the target shifted right behind bos, eos at its end, pads masked and ignored") {
  const data::CharTokenizer tok = data::CharTokenizer::from_alphabet("0123456789+");  // '0' = 5 ... '9' = 14, '+' = 15
  const train::Seq2SeqBatch b = train::make_seq2seq_batch({{"1+2", "3"}, {"12+34", "46"}}, tok);
  CHECK(b.src.shape() == Shape{2, 5});
  CHECK(b.src.to_vector<int64_t>() == std::vector<int64_t>{6, 15, 7, 0, 0, 6, 7, 15, 8, 9});
  CHECK(b.src_padding.to_vector<bool>() == std::vector<bool>{false, false, false, true, true, false, false, false,
                                                             false, false});
  CHECK(b.tgt_in.shape() == Shape{2, 3});
  CHECK(b.tgt_in.to_vector<int64_t>() == std::vector<int64_t>{2, 8, 0, 2, 9, 11});  // <bos> 3 <pad> | <bos> 4 6
  CHECK(b.tgt_out.to_vector<int64_t>() == std::vector<int64_t>{8, 3, -100, 9, 11, 3});  // 3 <eos> - | 4 6 <eos>
  CHECK(b.tgt_padding.to_vector<bool>() == std::vector<bool>{false, false, true, false, false, false});
  CHECK(train::kEosId == data::kSepId);
  CHECK(b.src_tokens == 8);
  CHECK(b.tgt_tokens == 5);
  CHECK_THROWS_WITH_AS(train::encode_known(tok, "1-2", "here"),
                       doctest::Contains("here: the character \"-\" is not in the model's vocabulary"), Error);
}

TEST_CASE("seq2seq batch and decoding: word tokens, one id each, decoded as words joined by the separator") {
  const auto tok = data::PairTokenizer::from_pairs({{"three one", "1 3"}}, " ");  // 1=5 3=6 one=7 three=8
  const train::Seq2SeqBatch b = train::make_seq2seq_batch({{"three  one", "1 3"}, {"one", "1"}}, tok);
  CHECK(b.src.to_vector<int64_t>() == std::vector<int64_t>{8, 7, 7, 0});
  CHECK(b.tgt_out.to_vector<int64_t>() == std::vector<int64_t>{5, 6, 3, 5, 3, -100});  // 1 3 <eos> | 1 <eos> -
  CHECK_THROWS_WITH_AS(train::encode_known(tok, "three two", "here"),
                       doctest::Contains("here: the token \"two\" is not in the model's vocabulary (4 tokens)"), Error);

  manual_seed(5);  // an untrained model writes arbitrary tokens: each a word of the vocabulary, one space apart
  train::Seq2SeqModel model(tiny_model(tok.size(), 4));
  for (const std::string& out : train::decode_inputs(model, tok, {"three one", "one"}, {.beam = 2})) {
    CAPTURE(out);
    const std::vector<std::string> words = tok.tokens(out);
    CHECK(out == fmt::format("{}", fmt::join(words, " ")));
    for (const std::string& w : words) CHECK(tok.vocab().id(w) >= data::kNumReserved);
  }
  CHECK_THROWS_WITH_AS(train::decode_inputs(model, tok, {"one one one one one"}),
                       doctest::Contains("input 1 has 5 tokens: the model reads 1 to 4"), Error);
}

TEST_CASE("seq2seq model: parameter_count as built, causal decoder, padded source positions unseen") {
  manual_seed(3);
  const train::ModelConfig config = tiny_model(20, 8);
  train::Seq2SeqModel model(config);
  int64_t built = 0;
  for (const auto& [name, t] : model.named_parameters()) built += t.numel();
  CHECK(train::parameter_count(config) == built);
  CHECK_THROWS_WITH_AS(train::TransformerModel{config}, doctest::Contains("train::Seq2SeqModel"), Error);

  NoGradGuard no_grad;
  model.eval();
  const Tensor src = tensor_i64({6, 7, 8, 0, 9, 10, 11, 12}, {2, 4});
  const Tensor src_pad = tensor_bool({false, false, false, true, false, false, false, false}, {2, 4});
  const Tensor tgt = tensor_i64({2, 5, 6, 2, 7, 8}, {2, 3});
  const Tensor logits = model.forward(src, src_pad, tgt);
  CHECK(logits.shape() == Shape{2, 3, 20});
  // A later target token does not change the earlier positions' logits (causal); the pad's token
  // in the source changes nothing (masked out of the encoder and the cross-attention).
  const Tensor later = model.forward(src, src_pad, tensor_i64({2, 5, 13, 2, 7, 8}, {2, 3}));
  CHECK(float_values(slice(later, 1, 0, 2)) == float_values(slice(logits, 1, 0, 2)));
  CHECK(float_values(slice(later, 1, 2, 3)) != float_values(slice(logits, 1, 2, 3)));
  const Tensor other_pad = model.forward(tensor_i64({6, 7, 8, 17, 9, 10, 11, 12}, {2, 4}), src_pad, tgt);
  test::require_close(other_pad, logits, 1e-6);
  const Tensor unmasked = model.forward(tensor_i64({6, 7, 8, 17, 9, 10, 11, 12}, {2, 4}), Tensor(), tgt);
  CHECK(float_values(slice(unmasked, 0, 0, 1)) != float_values(slice(logits, 0, 0, 1)));
}

TEST_CASE("seq2seq data: a shipped task's batches are a function of the seed and index, a file's are shuffled") {
  train::TrainConfig c = train::seq2seq_defaults();
  c.val_examples = 16;
  const train::Seq2SeqData d = train::make_seq2seq_data(c);
  CHECK(d.max_len == 7);  // "999+999" is 7 characters, "1998" + <eos> 5
  CHECK(d.training_batch(3, 4) == d.training_batch(3, 4));
  CHECK(d.training_batch(3, 4) != d.training_batch(4, 4));
  CHECK(d.val.size() == 16);
  CHECK(d.batches_per_epoch(4) == 0);

  test::TempDir dir("seq2seq_data");
  std::string text;
  for (int i = 0; i < 20; ++i) text += fmt::format("{}\t{}\n", i, i * 2);
  std::ofstream(dir.path() / "double.tsv") << text;
  train::TrainConfig f = c;
  f.task = "file", f.data = "double.tsv", f.out = dir.str(), f.val_fraction = 0.2;
  train::record_data_hash(f, train::RunDataFile::data);
  const train::Seq2SeqData fd = train::make_seq2seq_data(f);
  CHECK(fd.train.size() == 16);
  CHECK(fd.val.size() == 4);
  CHECK(fd.max_len == 3);  // "38" + <eos>
  CHECK(fd.batches_per_epoch(5) == 4);
  std::vector<data::Seq2SeqPair> epoch;
  for (int64_t i = 0; i < 4; ++i)
    for (const auto& p : fd.training_batch(i, 5)) epoch.push_back(p);
  CHECK(epoch.size() == 16);  // every training pair once
  CHECK(epoch != fd.train);
  CHECK(fd.training_batch(4, 5) != fd.training_batch(0, 5));  // epoch 1's order is another
}

TEST_CASE("seq2seq decoding: beam search of width 1 writes greedy's tokens") {
  const SearchLimits limits{.max_tokens = 4, .eos = 0};
  const auto greedy = train::greedy_search(table_scorer(), 1, limits);
  const Hypothesis one = train::beam_search(table_scorer(), 1, limits);
  CHECK(greedy.at(0) == std::vector<int64_t>{1, 1});
  CHECK(one.tokens == greedy.at(0));

  manual_seed(5);  // an untrained model's outputs: long and arbitrary
  const data::CharTokenizer tok = data::CharTokenizer::from_alphabet("0123456789+");
  train::Seq2SeqModel model(tiny_model(tok.size(), 6));
  const std::vector<std::string> inputs = {"1+2", "99+999", "0", "5+55", "12"};
  const auto by_greedy = train::decode_inputs(model, tok, inputs, {.beam = 0, .batch_size = 2});
  CHECK(by_greedy == train::decode_inputs(model, tok, inputs, {.beam = 1}));
  CHECK(by_greedy == train::decode_inputs(model, tok, inputs, {.beam = 0, .batch_size = 64}));
  CHECK_THROWS_WITH_AS(train::decode_inputs(model, tok, {"1234567"}),
                       doctest::Contains("input 1 has 7 characters: the model reads 1 to 6"), Error);
  CHECK_THROWS_WITH_AS(train::decode_inputs(model, tok, {"1"}, {.beam = 0, .batch_size = 0}),
                       doctest::Contains("batch_size must be >= 1"), Error);
}

TEST_CASE("seq2seq decoding: beam search finds a likelier output than greedy") {
  const SearchLimits limits{.max_tokens = 4, .eos = 0};
  // Greedy: A (0.55), A (0.36), eos (1): p = 0.198. Beam 2 also keeps B (0.40), whose eos (0.95)
  // gives p = 0.38.
  const Hypothesis best = train::beam_search(table_scorer(), 2, limits);
  CHECK(best.tokens == std::vector<int64_t>{2});
  CHECK(best.log_prob == doctest::Approx(std::log(0.40 * 0.95)));
  const Hypothesis greedy = train::beam_search(table_scorer(), 1, limits);
  CHECK(greedy.log_prob == doctest::Approx(std::log(0.55 * 0.36)));
  CHECK(best.log_prob > greedy.log_prob);
  // At the length limit only eos may follow.
  CHECK(train::beam_search(table_scorer(), 2, {.max_tokens = 0, .eos = 0}).tokens.empty());
  CHECK_THROWS_WITH_AS(train::beam_search(table_scorer(), 0, limits), doctest::Contains("beam must be >= 1, got 0"),
                       Error);
}

TEST_CASE("seq2seq trainer: 3 steps, a checkpoint, resume and 3 more give 6 uninterrupted steps' weights") {
  test::TempDir dir("seq2seq_resume");
  train::TrainConfig c = train::seq2seq_defaults();
  c.d_model = 16, c.heads = 2, c.layers = 1, c.ff = 32, c.dropout = 0.1;
  c.steps = 6, c.batch_size = 8, c.warmup = 1, c.eval_every = 3, c.val_examples = 8;
  c.out = (dir.path() / "straight").string();
  train::Trainer straight(c, {.console = nullptr});
  straight.fit();

  c.out = (dir.path() / "resumed").string();
  train::Trainer first(c, {.console = nullptr});
  first.fit(3);
  train::Trainer second(c, {.console = nullptr});
  second.resume(c.out);
  CHECK(second.step() == 3);
  second.fit();
  const NamedTensors a = straight.model().state_dict(), b = second.model().state_dict();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].first);
    CHECK(float_values(a[i].second) == float_values(b[i].second));
  }
  CHECK(float_values(a[0].second) != float_values(first.model().state_dict()[0].second));  // the last 3 steps changed it

  train::TrainConfig other = c;
  other.lr = 1e-2;
  train::Trainer changed(other, {.console = nullptr});
  CHECK_THROWS_WITH_AS(changed.resume(c.out), doctest::Contains("differs from the checkpoint's in lr"), Error);
}
