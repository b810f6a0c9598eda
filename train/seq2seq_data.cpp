#include "train/seq2seq_data.h"

#include <algorithm>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/factories.h"
#include "data/example.h"
#include "data/random.h"
#include "data/seq2seq_file.h"
#include "data/text.h"
#include "train/registry/registry.h"
#include "train/run_data.h"
#include "train/run_tokenizer.h"
#include "train/task_data.h"

namespace tg::train {

namespace {

constexpr int kCountersPerPair = 20;                       // pair i at offset i << 20
constexpr int kCountersPerEpoch = 32;                      // epoch e's order at offset e << 32

int64_t longest(const std::vector<data::Seq2SeqPair>& pairs, std::string data::Seq2SeqPair::*side,
                const data::PairTokenizer& tokenizer) {
  int64_t n = 0;
  for (const data::Seq2SeqPair& p : pairs) n = std::max<int64_t>(n, std::ssize(tokenizer.tokens(p.*side)));
  return n;
}

}  // namespace

int64_t seq2seq_positions(int64_t max_input_chars, int64_t max_output_chars) {
  return std::max(max_input_chars, max_output_chars + 1);
}

std::string token_sep_problem(std::string_view token_sep) {
  if (token_sep.size() > kMaxTokenSepBytes)
    return fmt::format("has {} bytes, more than the limit of {}", token_sep.size(), kMaxTokenSepBytes);
  if (token_sep.find_first_of("\t\r\n") != std::string_view::npos) return "cannot hold a tab or a line break";
  try {
    data::check_utf8(token_sep, "token_sep");
  } catch (const Error&) {
    return "is not valid UTF-8";
  }
  return "";
}

std::string default_token_sep(const TrainConfig& c) {
  const bool reads_pair_file = !c.data.empty() && c.tokenizer.empty() && task_named(c.task).reads_field("token_sep") &&
                               arch_named(c.arch).decodes_sequences;
  if (reads_pair_file && data::pair_file_gives_lists(InputFile("read_text_file", path_in_run(c.data, c.out))))
    return " ";
  return c.token_sep;
}

std::vector<data::Seq2SeqPair> Seq2SeqData::training_batch(int64_t index, int64_t batch_size) const {
  std::vector<data::Seq2SeqPair> pairs;
  if (draw) {
    for (int64_t i = index * batch_size; i < (index + 1) * batch_size; ++i) {
      Generator gen(seed);
      gen.set_state(seed, static_cast<uint64_t>(i) << kCountersPerPair);
      pairs.push_back(draw(gen));
    }
    return pairs;
  }
  const int64_t per_epoch = batches_per_epoch(batch_size), epoch = index / per_epoch;
  if (epoch != cached_epoch_) {
    Generator gen(seed);
    gen.set_state(seed, static_cast<uint64_t>(epoch) << kCountersPerEpoch);
    cached_order_ = data::random_permutation(std::ssize(train), gen);
    cached_epoch_ = epoch;
  }
  const int64_t first = (index % per_epoch) * batch_size;
  for (int64_t i = first; i < std::min<int64_t>(first + batch_size, std::ssize(train)); ++i)
    pairs.push_back(train[cached_order_[i]]);
  return pairs;
}

int64_t Seq2SeqData::batches_per_epoch(int64_t batch_size) const {
  return draw ? 0 : (std::ssize(train) + batch_size - 1) / batch_size;
}

FilePairs read_file_pairs(const TrainConfig& c) {
  FilePairs d;
  const InputFile file = open_run_data(c, RunDataFile::data);
  const std::string path = file.path().string();
  if (!c.tokenizer.empty() && data::pair_file_gives_lists(file))
    throw Error("config", fmt::format("{} gives token lists; a tokenizer ({}) encodes text: give each side as a "
                                      "string", path, c.tokenizer));
  std::vector<data::Seq2SeqPair> pairs = data::read_seq2seq_file(file, c.token_sep);
  if (c.val_data.empty()) {
    const std::vector<bool> is_val = data::choose_validation(std::ssize(pairs), c.val_fraction, c.seed);
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (is_val[i]) d.val_lines.push_back(fmt::format("{}:{}", path, i + 1));
      (is_val[i] ? d.val : d.train).push_back(std::move(pairs[i]));
    }
  } else {
    d.train = std::move(pairs);
    const InputFile val_file = open_run_data(c, RunDataFile::val_data);
    d.val = data::read_seq2seq_file(val_file, c.token_sep);
    for (size_t i = 0; i < d.val.size(); ++i)
      d.val_lines.push_back(fmt::format("{}:{}", val_file.path().string(), i + 1));
  }
  if (d.train.empty() || d.val.empty())
    throw Error("config", fmt::format("{}: too few pairs to hold out a validation set (val_fraction {})", path,
                                      c.val_fraction));
  return d;
}

Seq2SeqData pairs_from_file(const TrainConfig& c) {
  FilePairs pairs = read_file_pairs(c);
  Seq2SeqData d;
  d.train = std::move(pairs.train);
  d.val = std::move(pairs.val);
  d.tokenizer = c.tokenizer.empty() ? data::PairTokenizer::from_pairs(d.train, c.token_sep)
                                    : data::PairTokenizer(run_bpe_tokens(c));
  for (size_t i = 0; i < d.val.size(); ++i) {  // no <unk>: a token training lacks is an error
    encode_known(d.tokenizer, d.val[i].input, pairs.val_lines[i] + " input");
    encode_known(d.tokenizer, d.val[i].output, pairs.val_lines[i] + " output");
  }
  for (const auto* part : {&d.train, &d.val})
    d.max_len = std::max(d.max_len, seq2seq_positions(longest(*part, &data::Seq2SeqPair::input, d.tokenizer),
                                                      longest(*part, &data::Seq2SeqPair::output, d.tokenizer)));
  return d;
}

data::PairTokenizer run_pair_tokenizer(const Checkpoint& c, const std::filesystem::path& run_dir) {
  if (c.config.tokenizer.empty()) return {c.input_vocab, c.config.token_sep};
  return data::PairTokenizer(std::make_shared<const data::TextTokens>(run_text_tokens(c, run_dir)));
}

Seq2SeqData drawn_pairs(const TrainConfig& c, PairDraw draw) {
  Seq2SeqData d;
  d.draw = std::move(draw.pair);
  d.tokenizer = std::move(draw.tokenizer);
  Generator gen(c.seed + kValSeedOffset);
  for (int64_t i = 0; i < c.val_examples; ++i) d.val.push_back(d.draw(gen));
  d.max_len = seq2seq_positions(draw.max_input_chars, draw.max_output_chars);
  return d;
}

Seq2SeqData drawn_pairs(const TrainConfig& c, const data::Seq2SeqTask& task) {
  return drawn_pairs(c, {.pair = [task](Generator& gen) { return task.sample(gen); },
                         .tokenizer = task.tokenizer(),
                         .max_input_chars = task.max_input_length(),
                         .max_output_chars = task.max_output_length()});
}

Seq2SeqData make_seq2seq_data(const TrainConfig& c) {
  validate(c);
  if (!arch_named(c.arch).decodes_sequences)
    throw Error("config", fmt::format("make_seq2seq_data needs an arch that decodes sequences ({}), got {}",
                                      one_of(arch_names_where(&Arch::decodes_sequences)), c.arch));
  Seq2SeqData d = task_named(c.task).pairs(c);
  d.seed = c.seed;
  return d;
}

std::vector<int64_t> encode_known(const data::PairTokenizer& tokenizer, const std::string& text,
                                  const std::string& where) {
  std::vector<int64_t> ids;
  for (const std::string& token : tokenizer.tokens(text, where)) {
    const int64_t id = tokenizer.vocab().id(token);
    if (id < data::kNumReserved)
      throw Error("seq2seq", fmt::format("{}: the {} \"{}\" is not in the model's vocabulary ({} {})", where,
                                         tokenizer.token_sep().empty() ? "character" : "token",
                                         data::escape_token(token), tokenizer.size() - data::kNumReserved,
                                         tokenizer.unit()));
    ids.push_back(id);
  }
  return ids;
}

Seq2SeqBatch make_seq2seq_batch(const std::vector<data::Seq2SeqPair>& pairs, const data::PairTokenizer& tokenizer,
                                Device device) {
  if (pairs.empty()) throw Error("make_seq2seq_batch", "no pairs to batch");
  std::vector<std::vector<int64_t>> inputs, outputs;
  int64_t S = 0, T = 0;
  for (const data::Seq2SeqPair& p : pairs) {
    inputs.push_back(encode_known(tokenizer, p.input, "make_seq2seq_batch: input"));
    outputs.push_back(encode_known(tokenizer, p.output, "make_seq2seq_batch: output"));
    S = std::max<int64_t>(S, std::ssize(inputs.back()));
    T = std::max<int64_t>(T, std::ssize(outputs.back()) + 1);
  }
  const auto B = std::ssize(pairs);
  std::vector<int64_t> src(B * S, data::kPadId), tgt_in(B * T, data::kPadId), tgt_out(B * T, data::kIgnoreIndex);
  std::vector<bool> src_pad(B * S, true), tgt_pad(B * T, true);
  Seq2SeqBatch batch;
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<int64_t>& x = inputs[b];
    const std::vector<int64_t>& y = outputs[b];
    const auto n = std::ssize(y);
    std::copy(x.begin(), x.end(), src.begin() + b * S);
    std::fill(src_pad.begin() + b * S, src_pad.begin() + b * S + std::ssize(x), false);
    tgt_in[b * T] = data::kBosId;
    std::copy(y.begin(), y.end(), tgt_in.begin() + b * T + 1);
    std::copy(y.begin(), y.end(), tgt_out.begin() + b * T);
    tgt_out[b * T + n] = kEosId;
    std::fill(tgt_pad.begin() + b * T, tgt_pad.begin() + b * T + n + 1, false);
    batch.src_tokens += std::ssize(x);
    batch.tgt_tokens += n + 1;
  }
  batch.src = to_device_copy(tensor_i64(src, {B, S}), device);
  batch.src_padding = to_device_copy(tensor_bool(src_pad, {B, S}), device);
  batch.tgt_in = to_device_copy(tensor_i64(tgt_in, {B, T}), device);
  batch.tgt_padding = to_device_copy(tensor_bool(tgt_pad, {B, T}), device);
  batch.tgt_out = to_device_copy(tensor_i64(tgt_out, {B, T}), device);
  return batch;
}

}  // namespace tg::train
