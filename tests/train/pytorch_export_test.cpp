// tapegrad export --format pytorch and tapegrad import (train/pytorch_export.h): the files an
// export writes (an encoder run, a gpt run, a BPE run's tokenizer), and export -> import giving
// the run's weights back bit for bit. The logits of the exported models in PyTorch, and the BPE
// encoding of tapegrad_model.py, are compared by tests/pytorch/pytorch_roundtrip.py.
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "data/grammar_corpus.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/pytorch_export.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

// A finished one-layer reverse run (d_model 16, 2 heads, ff 24) in dir / "run".
std::string tiny_trained_run(const TempDir& dir) {
  const std::string run = (dir.path() / "run").string();
  const test::CliResult r = test::run_cli({"train", "--task", "reverse", "--steps", "3", "--warmup", "1", "--d-model",
                                           "16", "--heads", "2", "--layers", "1", "--ff", "24", "--batch-size", "8",
                                           "--val-examples", "8", "--out", run});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return run;
}

// A finished one-layer gpt run (d_model 16, 2 heads, ff 24, block 12) on a small grammar corpus
// in dir / "gpt", with `flags` added.
std::string tiny_gpt_run(const TempDir& dir, const std::vector<std::string>& flags) {
  const std::string run = (dir.path() / "gpt").string(), corpus = (dir.path() / "corpus.txt").string();
  data::write_grammar_corpus(corpus, 200);
  std::vector<std::string> args{"train", "--task", "lm", "--arch", "gpt", "--data", corpus, "--block-size", "12",
                                "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "24", "--batch-size", "8",
                                "--steps", "3", "--warmup", "1", "--eval-batches", "1", "--out", run};
  args.insert(args.end(), flags.begin(), flags.end());
  const test::CliResult r = test::run_cli(args);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return run;
}

std::vector<std::string> names_of(const NamedTensors& tensors) {
  std::vector<std::string> names;
  for (const auto& [name, _] : tensors) names.push_back(name);
  return names;
}

void require_bit_equal(const NamedTensors& a, const NamedTensors& b) {
  REQUIRE(names_of(a) == names_of(b));
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].first);
    REQUIRE(a[i].second.dtype() == b[i].second.dtype());
    REQUIRE(a[i].second.shape() == b[i].second.shape());
    const Tensor x = contiguous_copy(a[i].second), y = contiguous_copy(b[i].second);
    CHECK(std::memcmp(x.raw_data(), y.raw_data(), static_cast<size_t>(x.numel()) * element_size(x.dtype())) == 0);
  }
}

}  // namespace

TEST_CASE("export --format pytorch writes PyTorch's state_dict, the model's Python file and the vocabularies") {
  TempDir dir("export_pytorch");
  const std::string run = tiny_trained_run(dir);
  const std::filesystem::path out = dir.path() / "torch";
  const test::CliResult r = test::run_cli({"export", run, "--format", "pytorch", out.string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("model.safetensors, config.json, tapegrad_model.py") != std::string::npos);
  CHECK(r.out.find("load_text_tokens") == std::string::npos);  // its tokens are not a text

  // Exactly nn.TransformerEncoder's names (norm_first layers, a final norm) between the
  // embedding and the head; no positional table (a non-persistent buffer on both sides).
  const NamedTensors state = load_safetensors(out / "model.safetensors").tensors;
  const std::string l = "encoder.layers.0.";
  CHECK(names_of(state) == std::vector<std::string>{
            "embedding.weight", l + "self_attn.in_proj_weight", l + "self_attn.in_proj_bias",
            l + "self_attn.out_proj.weight", l + "self_attn.out_proj.bias", l + "linear1.weight", l + "linear1.bias",
            l + "linear2.weight", l + "linear2.bias", l + "norm1.weight", l + "norm1.bias", l + "norm2.weight",
            l + "norm2.bias", "encoder.norm.weight", "encoder.norm.bias", "head.weight", "head.bias"});
  CHECK(state[1].second.shape() == Shape{48, 16});
  CHECK(state[1].second.dtype() == kF32);

  const auto config = nlohmann::json::parse(test::read_file(out / "config.json"));
  CHECK(config["format"] == train::kPytorchExportFormat);
  CHECK(config["task"] == "reverse");
  CHECK(config["model"] == nlohmann::json::parse(R"({"vocab_size": 15, "num_classes": 15, "max_len": 17,
      "d_model": 16, "heads": 2, "layers": 1, "ff": 24, "dropout": 0.0, "causal": false})"));
  const std::vector<std::string> vocab{"<pad>", "<unk>", "<bos>", "<sep>", "<mask>", "0", "1", "2", "3", "4", "5",
                                       "6", "7", "8", "9"};
  CHECK(config["input_vocab"] == vocab);
  CHECK(config["output_vocab"] == vocab);

  // The Python file is train/tapegrad_model.py as the repository has it.
  const std::string py = test::read_file(out / "tapegrad_model.py");
  CHECK(py == test::read_file(std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "train" / "tapegrad_model.py"));
  CHECK(py.find("class TapegradModel(nn.Module)") != std::string::npos);
}

TEST_CASE("export -> import gives the run's weights back bit for bit, the rest of the run is kept") {
  TempDir dir("import_pytorch");
  const std::string run = tiny_trained_run(dir);
  const std::filesystem::path out = dir.path() / "torch", imported = dir.path() / "imported";
  REQUIRE(test::run_cli({"export", run, "--format", "pytorch", out.string()}).status == 0);
  const test::CliResult r = test::run_cli({"import", run, (out / "model.safetensors").string(), "--out",
                                           imported.string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);

  const train::Checkpoint before = train::load_checkpoint(train::checkpoint_file(run));
  const train::Checkpoint after = train::load_checkpoint(train::checkpoint_file(imported));
  require_bit_equal(after.model, before.model);
  require_bit_equal(after.optimizer, before.optimizer);
  CHECK(after.step == before.step);
  CHECK(after.model_config == before.model_config);
  CHECK(after.input_vocab == before.input_vocab);
  CHECK(after.config.out == imported.string());

  // Changed weights come through in place of the run's.
  NamedTensors state = load_safetensors(out / "model.safetensors").tensors;
  state.back().second.data<float>()[0] = 0.25f;  // head.bias[0]
  save_safetensors(dir.path() / "changed.safetensors", state);
  const train::Checkpoint changed = train::import_pytorch(before, dir.path() / "changed.safetensors");
  CHECK(changed.model.back().first == "head.bias");
  CHECK(changed.model.back().second.data<float>()[0] == 0.25f);
  CHECK(changed.model.back().second.data<float>()[1] == before.model.back().second.data<float>()[1]);
}

TEST_CASE("export of a gpt run writes GPT's state_dict with the tied table once and the arch, and import gives the "
          "weights back") {
  TempDir dir("export_gpt");
  const std::string run = tiny_gpt_run(dir, {"--tie-weights"});
  const std::filesystem::path out = dir.path() / "torch", imported = dir.path() / "imported";
  test::CliResult r = test::run_cli({"export", run, "--format", "pytorch", out.string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("(task lm, arch gpt, step 3)") != std::string::npos);
  CHECK(r.out.find(": model.safetensors, config.json, tapegrad_model.py\n") != std::string::npos);
  CHECK(r.out.find("text = tapegrad_model.load_text_tokens(") != std::string::npos);  // a language model's

  // GPT's names: the learned position table, gelu blocks as nn.TransformerEncoder's, and no
  // head: the tied head is the embedding, saved once.
  const NamedTensors state = load_safetensors(out / "model.safetensors").tensors;
  const std::string l = "encoder.layers.0.";
  CHECK(names_of(state) == std::vector<std::string>{
            "embedding.weight", "pos_encoding.weight", l + "self_attn.in_proj_weight", l + "self_attn.in_proj_bias",
            l + "self_attn.out_proj.weight", l + "self_attn.out_proj.bias", l + "linear1.weight", l + "linear1.bias",
            l + "linear2.weight", l + "linear2.bias", l + "norm1.weight", l + "norm1.bias", l + "norm2.weight",
            l + "norm2.bias", "encoder.norm.weight", "encoder.norm.bias"});
  CHECK(state[1].second.shape() == Shape{12, 16});

  const auto config = nlohmann::json::parse(test::read_file(out / "config.json"));
  CHECK(config["task"] == "lm");
  CHECK(config["model"]["arch"] == "gpt");
  CHECK(config["model"]["tie_weights"] == true);
  CHECK(config["model"]["causal"] == true);
  CHECK_FALSE(config.contains("tokenizer"));  // a character run: its vocabulary is its tokens
  CHECK(config["input_vocab"].size() > 5);
  CHECK_FALSE(std::filesystem::exists(out / "tokenizer.json"));

  r = test::run_cli({"import", run, (out / "model.safetensors").string(), "--out", imported.string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const train::Checkpoint before = train::load_checkpoint(train::checkpoint_file(run));
  const train::Checkpoint after = train::load_checkpoint(train::checkpoint_file(imported));
  require_bit_equal(after.model, before.model);
  CHECK(after.model_config == before.model_config);
}

TEST_CASE("export of a BPE run writes the run's tokenizer file byte for byte beside the model, and names it") {
  TempDir dir("export_bpe");
  const std::filesystem::path corpus = dir.path() / "tok_corpus.txt", tok = dir.path() / "tok.json";
  data::write_grammar_corpus(corpus.string(), 200);
  REQUIRE(test::run_cli({"tokenizer", "train", corpus.string(), "--vocab-size", "280", "--out", tok.string()})
              .status == 0);
  // Not the canonical text tapegrad writes (a space after the first comma): the export copies
  // the file, it does not write the tokenizer anew.
  std::string text = test::read_file(tok);
  text.insert(text.find(',') + 1, " ");
  std::ofstream(tok, std::ios::binary | std::ios::trunc) << text;
  const std::string run = tiny_gpt_run(dir, {"--tokenizer", tok.string()});

  const std::filesystem::path out = dir.path() / "torch";
  test::CliResult r = test::run_cli({"export", run, "--format", "pytorch", out.string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find(": model.safetensors, config.json, tokenizer.json, tapegrad_model.py\n") != std::string::npos);
  CHECK(test::read_file(out / "tokenizer.json") == text);
  const auto config = nlohmann::json::parse(test::read_file(out / "config.json"));
  CHECK(config["tokenizer"] == "tokenizer.json");
  CHECK(config["input_vocab"].size() == 5 + 280);  // the reserved ids, then the tokenizer's

  // A tokenizer changed since training is not the run's: refused, the earlier export kept.
  std::ofstream(tok, std::ios::app) << " ";
  r = test::run_cli({"export", run, "--format", "pytorch", out.string()});
  CHECK(r.status == 1);
  CHECK(r.err.find("the file's content is not the run's") != std::string::npos);
  CHECK(test::read_file(out / "tokenizer.json") == text);
}

TEST_CASE("import of a run that learned its tokenizer takes the run's tokenizer.json along") {
  TempDir dir("import_bpe");
  const std::string run = tiny_gpt_run(dir, {"--tokenizer", "bpe", "--vocab-size", "270"});
  const std::filesystem::path out = dir.path() / "torch", imported = dir.path() / "imported";
  REQUIRE(test::run_cli({"export", run, "--format", "pytorch", out.string()}).status == 0);
  CHECK(test::read_file(out / "tokenizer.json") == test::read_file(std::filesystem::path(run) / "tokenizer.json"));
  test::CliResult r = test::run_cli({"import", run, (out / "model.safetensors").string(), "--out", imported.string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(test::read_file(imported / "tokenizer.json") == test::read_file(std::filesystem::path(run) / "tokenizer.json"));
  r = test::run_cli({"eval", imported.string()});  // reads the tokenizer where the config names it
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("bits per byte") != std::string::npos);

  // A checkpoint whose relative tokenizer path leads out of its run: no copy written out there.
  const std::filesystem::path outside = dir.path() / "tokenizer.json";
  std::filesystem::copy_file(std::filesystem::path(run) / "tokenizer.json", outside);
  SafetensorsFile f = load_safetensors(train::checkpoint_file(run));
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(f.metadata.at("config"));
  config["tokenizer"] = "../tokenizer.json";
  f.metadata["config"] = config.dump();
  const std::filesystem::path edited = std::filesystem::path(run) / "edited.safetensors";
  save_safetensors(edited, f.tensors, f.metadata);
  r = test::run_cli({"import", edited.string(), (out / "model.safetensors").string(), "--out",
                     (dir.path() / "runs" / "imported").string()});
  CHECK(r.status == 1);
  CHECK(r.err.find("the run's tokenizer \"../tokenizer.json\" is a relative path out of the run's directory") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs" / "tokenizer.json"));
}
