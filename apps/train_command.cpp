// tapegrad train: flags -> TrainConfig -> Trainer. With --resume the config comes from the
// checkpoint and only the flags given explicitly change it (the Trainer refuses changes that
// would alter the steps already taken); the run writes into the directory --resume names.
// A fresh run refuses an --out directory that holds a run unless --overwrite is given, and the
// run directory is locked for the whole run (train/run_lock.h: rank 0's under mpirun). A flag
// that the run's task does not read is refused (--data for reverse, --val-examples for lm).
// Data paths are stored as the run directory needs them (train::path_for_run), every path it
// stores valid UTF-8 (checked before anything runs: the checkpoint's config is JSON), and
// --steps +N continues a run for N more steps than its checkpoint has done. A fresh --arch seq2seq
// run takes train::seq2seq_defaults() for the flags not given, and --task pairs.tsv for --task
// file --data pairs.tsv. Every arch trains with the one Trainer, under mpirun too.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/fit_console.h"
#include "apps/seq2seq_commands.h"
#include "core/device.h"
#include "data/bpe_tokenizer.h"
#include "core/io/untrusted_text.h"
#include "core/numerics.h"
#include "report/run_page_observer.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/registry/registry.h"
#include "train/run_data.h"
#include "train/run_lock.h"
#include "train/run_tokenizer.h"
#include "train/seq2seq_task.h"
#include "train/trainer.h"
#ifdef TAPEGRAD_WITH_MPI  // mpirun -np N tapegrad train: data-parallel training (dist/)
#include "dist/dist.h"
#include "dist/trainer_parallel.h"
#endif

namespace tg::cli {

namespace {

// A flag bound to one TrainConfig field, so that on --resume exactly the flags given can be
// copied over the checkpoint's config.
struct Flag {
  std::string name;  // "--steps"
  CLI::Option* option;
  std::function<void(train::TrainConfig& to, const train::TrainConfig& from)> copy;
};

struct TrainArgs {
  train::TrainConfig config;
  std::vector<Flag> flags;
  int64_t more_steps = 0;  // --steps +N
  std::string resume;
  bool overwrite = false;
  int threads = 0;
  int64_t vocab_size = 0;  // --tokenizer bpe: the tokenizer's size (0: not given)
};

template <class T>
CLI::Option* flag(CLI::App* sub, TrainArgs& args, const std::string& name, T train::TrainConfig::*field,
                  const std::string& help) {
  CLI::Option* option = sub->add_option(name, args.config.*field, help)->capture_default_str();
  args.flags.push_back({name, option, [field](train::TrainConfig& to, const train::TrainConfig& from) {
                          to.*field = from.*field;
                        }});
  return option;
}

// --steps: a total, or +N (N more than a resumed checkpoint has done).
CLI::Validator step_count() {
  return CLI::Validator(
      [total = integer_in(1, train::kMaxSteps)](std::string& text) {
        if (!text.starts_with('+')) return total(text);
        std::string more = text.substr(1);
        return total(more).empty() ? std::string()
                                   : fmt::format("+N must have N an integer in [1, {}], got {}", train::kMaxSteps, text);
      },
      fmt::format("[1, {}] or +N", train::kMaxSteps));
}

void set_steps(const std::string& text, TrainArgs& args) {
  if (text.starts_with('+')) args.more_steps = std::stoll(text.substr(1));
  else args.config.steps = std::stoll(text);
}

bool given(const TrainArgs& args, const std::string& name) {
  for (const Flag& f : args.flags)
    if (f.name == name) return f.option->count() > 0;
  return false;
}

// The config field a flag sets: "--val-data" -> "val_data".
std::string field_of(const std::string& flag) {
  std::string field = flag.substr(2);
  std::replace(field.begin(), field.end(), '-', '_');
  return field;
}

bool is_data_file(const std::string& task) { return task.ends_with(".tsv") || task.ends_with(".jsonl"); }

// --task: a registered task's name, or (an arch that decodes sequences) a .tsv/.jsonl file of pairs.
CLI::Validator task_name() {
  return CLI::Validator(
      [](std::string& text) {
        if (is_data_file(text) || train::is_task(text)) return std::string();
        return fmt::format("{} is not a task ({}) nor a .tsv/.jsonl file", text, fmt::join(train::task_names(), ", "));
      },
      "TASK|FILE");
}

// --task's and --arch's help, from the registry: the tasks, and the archs with the tasks of each.
std::string task_help() {
  std::vector<std::string> summaries;
  for (const train::Task& t : train::tasks()) summaries.push_back(t.summary);
  return train::one_of(summaries) + "; or a .tsv/.jsonl file of pairs (--task file --data FILE)";
}

// A task-specific flag's help: "copy/reverse/sort/sort_unique: shortest sequence".
std::string read_by(const char* field, const std::string& what) {
  return fmt::format("{}: {}", fmt::join(train::tasks_reading(field), "/"), what);
}

std::string arch_help() {
  std::vector<std::string> archs;
  for (const train::Arch& a : train::archs())
    archs.push_back(fmt::format("{}: {}", a.summary, fmt::join(train::tasks_training_with(a.name), ", ")));
  return fmt::format("{}", fmt::join(archs, "; "));
}

// --device names a GPU this machine has.
void check_device_available(const std::string& name) {
  const Device device = train::parse_device(name);
  if (!device.is_cuda() || device.index < cuda_device_count()) return;
  const std::string found = !cuda_built()               ? "tapegrad was built without CUDA"
                            : cuda_device_count() == 0 ? "no CUDA GPU is available"
                                                       : fmt::format("only {} CUDA GPU(s) are available (cuda:0 to "
                                                                     "cuda:{})", cuda_device_count(),
                                                                     cuda_device_count() - 1);
  throw CLI::ValidationError("--device", fmt::format("{}: {}; train on the CPU with --device cpu", name, found));
}

// The checks that concern more than one flag (each flag's own range is checked as it is
// parsed), on the run's config: the flags', or with --resume the checkpoint's with the flags.
void check_flag_combinations(const TrainArgs& args, const train::TrainConfig& c) {
  if (!train::is_task(c.task))  // --resume --task pairs.tsv: a file of pairs names a fresh run's data
    throw CLI::ValidationError("--task", fmt::format("{} is not a task ({})", c.task, train::one_of(train::task_names())));
  const train::Task& task = train::task_named(c.task);
  const train::Arch& arch = train::arch_named(c.arch);
  for (const Flag& f : args.flags)  // a flag of a task-specific field that this task does not read
    if (const auto readers = train::tasks_reading(field_of(f.name));
        f.option->count() > 0 && !readers.empty() && !task.reads_field(field_of(f.name)))
      throw CLI::ValidationError(f.name, fmt::format("task {} does not read it (tasks that do: {})", c.task,
                                                     fmt::join(readers, ", ")));
  if (const auto refusal = train::pairing_refusal(c, "--"))
    throw CLI::ValidationError("--" + refusal->field, refusal->why);
  if (given(args, "--token-sep") && !arch.decodes_sequences)
    throw CLI::ValidationError("--token-sep", fmt::format("splits the pair files of --arch {}, got --arch {}",
                                                          train::one_of(train::arch_names_where(
                                                              &train::Arch::decodes_sequences)), c.arch));
  if (!c.tokenizer.empty() && !task.text && !arch.decodes_sequences)
    throw CLI::ValidationError("--tokenizer", fmt::format("tokenizes a text or the pair files of --arch {}, got --arch {}",
                                                          train::one_of(train::arch_names_where(
                                                              &train::Arch::decodes_sequences)), c.arch));
  if (!c.tokenizer.empty() && !c.token_sep.empty())
    throw CLI::ValidationError("--token-sep", fmt::format("splits text into words; the run's tokens are those of "
                                                          "--tokenizer {}: give one of the two", c.tokenizer));
  if (arch.decodes_sequences && given(args, "--ignore-tokens"))
    throw CLI::ValidationError("--ignore-tokens", fmt::format("a {} run scores whole decoded outputs: no token is "
                                                              "left out", arch.name));
  if (const std::string tying = train::one_of(train::arch_names_where(&train::Arch::ties_weights));
      c.tie_weights && !arch.ties_weights)
    throw CLI::ValidationError("--tie-weights", fmt::format("ties a {} model's head to its embedding: it needs --arch "
                                                            "{}, got {}", tying, tying, c.arch));
  if (given(args, "--val-fraction") && !c.val_data.empty())
    throw CLI::ValidationError("--val-fraction", fmt::format("the validation set is the --val-data file ({}), scored "
                                                             "whole", c.val_data));
  if (args.vocab_size > 0 && c.tokenizer != train::kLearnedTokenizer)
    throw CLI::ValidationError("--vocab-size", fmt::format("sizes the tokenizer that --tokenizer {} learns; the run's "
                                                           "tokenizer is {}", train::kLearnedTokenizer,
                                                           c.tokenizer.empty() ? "characters" : c.tokenizer));
  if (given(args, "--warmup") && c.warmup >= c.steps)
    throw CLI::ValidationError("--warmup", fmt::format("must be < --steps ({}), got {}", c.steps, c.warmup));
  if (c.steps > train::kMaxExamples / c.batch_size / c.grad_accum)
    throw CLI::ValidationError(
        "--steps", fmt::format("--steps * --batch-size * --grad-accum must be <= {}, got {} * {} * {}",
                               train::kMaxExamples, c.steps, c.batch_size, c.grad_accum));
  check_device_available(c.device);
  if (std::error_code ec; std::filesystem::exists(c.out, ec) && !std::filesystem::is_directory(c.out, ec))
    throw CLI::ValidationError("--out", fmt::format("{} is a file, not a directory", c.out));
}

// A data path given with `flag` (relative to the working directory), as the run stores it:
// relative to its directory when inside it, absolute otherwise. The flag's text is UTF-8
// (utf8_path); made absolute, it takes the working directory's bytes too, which may not be.
std::string stored_path(const char* flag, const std::string& path, const std::string& run_dir) {
  std::string stored = train::path_for_run(path, run_dir);
  if (const std::string problem = non_utf8_path(stored); !problem.empty())
    throw CLI::ValidationError(flag, problem + " (the run stores the file's absolute path, of which the working "
                                               "directory is part)");
  return stored;
}

// The data paths given on the command line, as the run stores them.
void store_paths_for_run(const TrainArgs& args, train::TrainConfig& c) {
  for (auto [flag, path] :
       {std::pair{"--data", &c.data}, std::pair{"--val-data", &c.val_data}, std::pair{"--tokenizer", &c.tokenizer}})
    if (given(args, flag) && !path->empty() && *path != train::kLearnedTokenizer)
      *path = stored_path(flag, *path, c.out);
}

// A fresh run's config: the flags, with the default warmup scaled to a short run.
train::TrainConfig fresh_config(const TrainArgs& args) {
  if (args.more_steps > 0)
    throw CLI::ValidationError("--steps", fmt::format("+{} counts steps beyond a checkpoint's: it needs --resume (a "
                                                      "fresh run takes the total, --steps {})", args.more_steps,
                                                      args.more_steps));
  train::TrainConfig c = args.config;
  const train::TrainConfig defaults = train::arch_named(c.arch).defaults();  // the arch's, for the flags not given
  for (const Flag& f : args.flags)
    if (f.option->count() == 0) f.copy(c, defaults);
  if (!given(args, "--warmup")) c.warmup = train::scaled_warmup(c);
  store_paths_for_run(args, c);
  if (is_data_file(c.task)) {  // --task pairs.tsv: --task file --data pairs.tsv
    if (!train::arch_named(c.arch).decodes_sequences)
      throw CLI::ValidationError(
          "--task", fmt::format("a file of pairs ({}) is read by --arch {}; per-position labels are --task file --data {}",
                                c.task, train::one_of(train::arch_names_where(&train::Arch::decodes_sequences)), c.task));
    if (given(args, "--data"))
      throw CLI::ValidationError("--data", fmt::format("--task already names the data file ({})", c.task));
    c.data = stored_path("--task", c.task, c.out);
    c.task = "file";
  }
  return c;
}

// The directory a resumed run writes into: the one named by --resume (a run directory, or
// the directory of a checkpoint file), never the one the checkpoint recorded.
std::filesystem::path resumed_run_dir(const TrainArgs& args) {
  const std::filesystem::path p(args.resume);
  if (std::filesystem::is_directory(p)) return p;
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

// A fresh run does not mix its files with an earlier run's: it is refused unless --overwrite,
// which removes them (once the run has been set up).
const char* const kRunFiles[] = {"checkpoint.safetensors", "metrics.jsonl", "metrics.csv", "report.html"};

void refuse_existing_run(const TrainArgs& args, const std::filesystem::path& dir) {
  if (args.overwrite) return;
  for (const char* name : kRunFiles)
    if (std::filesystem::exists(dir / name))
      throw CLI::ValidationError(
          "--out", fmt::format("{} already holds a run ({}); continue it with --resume {} or start it afresh with "
                               "--overwrite", dir.string(), name, dir.string()));
}

void remove_earlier_run(const std::filesystem::path& dir) {
  for (const char* name : kRunFiles) std::filesystem::remove(dir / name);
}

int64_t parameter_count(nn::Module& model) {
  int64_t n = 0;
  for (const auto& [name, t] : model.named_parameters()) n += t.numel();
  return n;
}

// The config of a resumed run: the checkpoint's, with the flags given copied over it, writing
// into the directory --resume names. --steps is a total above the steps done, or +N more.
train::TrainConfig resumed_config(const TrainArgs& args) {
  const std::filesystem::path file = train::checkpoint_file(args.resume);
  const train::Checkpoint checkpoint = train::load_checkpoint(file);
  train::TrainConfig config = checkpoint.config;
  for (const Flag& f : args.flags)
    if (f.option->count() > 0) f.copy(config, args.config);
  config.out = resumed_run_dir(args).string();
  store_paths_for_run(args, config);
  if (args.more_steps > train::kMaxSteps - checkpoint.step)
    throw CLI::ValidationError("--steps", fmt::format("+{} after the {} steps done passes the limit of {} steps",
                                                      args.more_steps, checkpoint.step, train::kMaxSteps));
  if (args.more_steps > 0) config.steps = checkpoint.step + args.more_steps;
  if (config.steps < checkpoint.step)
    throw CLI::ValidationError("--steps", fmt::format("{} has done {} steps already, more than {}: give a larger total, "
                                                      "or +N for N more steps", file.string(), checkpoint.step,
                                                      config.steps));
  return config;
}

// Whether a signal came during the run's setup: if so, says so and that the run is as it was.
bool stopped_in_setup(const TrainArgs& args, const train::TrainConfig& config, train::DataParallel* parallel,
                      Io& io) {
  return stopped_before_training(parallel,
                                 args.resume.empty() ? "nothing written"
                                                     : fmt::format("the run in {} is unchanged (continue it with: "
                                                                   "tapegrad train --resume {})", config.out,
                                                                   args.resume),
                                 io);
}

// The run itself, once its config is settled: one process (parallel null) or one rank of a job.
void train_run(const TrainArgs& args, const train::TrainConfig& config, bool resuming, Io& io,
               const std::shared_ptr<train::DataParallel>& parallel) {
  const bool lead = !parallel || parallel->rank() == 0;  // prints and writes the run's files
  if (stopped_in_setup(args, config, parallel.get(), io)) return;
  std::optional<train::RunLock> lock;  // the run directory is this run's until it returns
  if (lead) {
    std::filesystem::create_directories(config.out);
    lock.emplace("train", config.out);
    if (!resuming) refuse_existing_run(args, config.out);  // again, locked: a run may have ended here since
  }
  const int threads = set_threads(args.threads);
  io.activity = fmt::format("reading the data and building the model (--d-model {}, --layers {}, --ff {}, "
                            "--batch-size {})", config.d_model, config.layers, config.ff, config.batch_size);
  train::Trainer trainer(config, {.console = lead ? io.out : nullptr, .write_files = lead, .parallel = parallel});
  trainer.attach(report::run_page_observer(trainer));  // report.html and metrics.csv, beside each checkpoint
  if (resuming) {
    trainer.resume(args.resume);
    if (trainer.step() == config.steps) {
      fmt::print(io.out, "tapegrad train: {} is already at step {} of its {} steps; nothing to do (give --steps +N "
                         "for N more steps, or a larger total)\n", config.out, trainer.step(), config.steps);
      return;
    }
  }
  // The run is set up (the data read, the model built, the checkpoint loaded): it stops if a
  // signal came meanwhile, leaving the directory as it was; else a fresh run clears the earlier
  // run there (--overwrite) and training begins.
  if (stopped_in_setup(args, config, parallel.get(), io)) return;
  if (!resuming && lead) remove_earlier_run(config.out);

  const train::ModelConfig& m = trainer.task().model_config();
  const train::Arch& arch = train::arch_named(m.arch);
  const bool seq2seq = arch.decodes_sequences;
  if (seq2seq) {
    print_seq2seq_run(trainer.task_as<train::Seq2SeqTask>(), config, parameter_count(trainer.model()), io);
  } else {
    fmt::print(io.out, "tapegrad train: task {}{}{}, {} parameters (d_model {}, {} heads, {} layers, ff {}, dropout "
                       "{})\n", config.task, config.data.empty() ? "" : " on " + config.data,
               arch.ties_weights ? fmt::format(", arch {} ({} head)", m.arch, m.tie_weights ? "tied" : "untied") : "",
               parameter_count(trainer.model()), m.d_model, m.heads, m.layers, m.ff, m.dropout);
  }
  fmt::print(io.out, "  {} steps of {} x {} {}, AdamW lr {} (warmup {}, cosine), {}, {} threads, seed {}\n",
             config.steps, config.grad_accum, config.batch_size, seq2seq ? "pairs" : "examples", config.lr,
             config.warmup, config.device, threads, config.seed);
  if (parallel)
    fmt::print(io.out, "  data-parallel on {} ranks (MPI): each trains on its share of every batch of {}\n",
               parallel->world_size(), config.batch_size);
  fmt::print(io.out, "  {} path{}{}{}\n", config.composed ? "composed" : "fused",
             config.composed ? " (--composed): every op of the model recorded separately" : "",
             config.checkpoint_activations ? ", each layer's activations recomputed in the backward "
                                             "(--checkpoint-activations)" : "",
             config.numerics == kLatestNumerics
                 ? ""
                 : fmt::format(", float32 arithmetic of numerics version {} (--numerics; the latest is {})",
                               config.numerics, kLatestNumerics));
  fmt::print(io.out, "  run directory {}{}\n", config.out,
             resuming ? fmt::format(" (resumed at step {})", trainer.step()) : "");
  std::fflush(io.out);

  trainer.stop_requested = stop_on_signal(parallel.get());
  io.activity = fmt::format("training (--batch-size {}, --d-model {}, sequences of up to {} tokens)",
                            config.batch_size, config.d_model, m.max_len);
  const std::clock_t cpu_start = std::clock();
  const train::FitResult r = trainer.fit();
  if (!print_fit_end(r, cpu_start, trainer.step(), config, trainer.checkpoint_path(), io)) return;
  if (seq2seq)
    fmt::print(io.out, "validation at step {} (greedy decoding): exact match {:.4f}, token accuracy {:.4f}, "
                       "teacher-forced loss {:.4f} ({} pairs)\n",
               r.eval.step, r.eval.exact_match, r.eval.token_accuracy, r.eval.loss, r.eval.sequences);
  else
    fmt::print(io.out, "validation at step {}: loss {:.4f}, token accuracy {:.4f}, exact match {:.4f}{} ({} "
                       "sequences)\n", r.eval.step, r.eval.loss, r.eval.token_accuracy, r.eval.exact_match,
               r.eval.bits_per_byte > 0 ? fmt::format(", bits per byte {:.4f}", r.eval.bits_per_byte) : "",
               r.eval.sequences);
  fmt::print(io.out, "checkpoint: {}\n", trainer.checkpoint_path().string());
}

#ifdef TAPEGRAD_WITH_MPI
// One rank of `mpirun -np N tapegrad train`: rank 0 prints and writes, the others print into
// /dev/null. An error on any rank ends the whole job (MPI_Abort) with a message naming the
// rank, so that no rank is left waiting in a collective.
void run_rank(const TrainArgs& args, const train::TrainConfig& config, bool resuming, Io& io) {
  dist::Session mpi;
  const int rank = dist::rank(), ranks = dist::world_size();
  if (ranks == 1) return train_run(args, config, resuming, io, nullptr);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> null_out(rank == 0 ? nullptr : std::fopen("/dev/null", "w"),
                                                         std::fclose);
  Io rank_io = io;
  if (rank != 0) rank_io.out = null_out.get();
  try {
    auto parallel = std::make_shared<dist::TrainerParallel>();
    train_run(args, config, resuming, rank_io, parallel);
    const dist::DistributedDataParallel& ddp = parallel->ddp();
    fmt::print(rank_io.out, "rank 0 waited {:.2f} s in MPI_Wait for the gradients ({:.2f} ms per update, {} buckets)\n",
               ddp.wait_seconds(), 1e3 * ddp.wait_seconds() / static_cast<double>(std::max<int64_t>(ddp.synced_backwards(), 1)),
               ddp.bucket_count());
  } catch (const std::exception& e) {
    fmt::print(io.err, "tapegrad train: error on rank {} of {}: {}; stopping every rank\n", rank, ranks,
               visible_text(e.what(), LineBreaks::keep));
    std::fflush(io.err);
    dist::abort(1);
  }
  io.status = rank_io.status;
}
#endif

void run_train(const TrainArgs& args, Io& io) {
  StopSignalScope signals;  // from the start: a signal during the setup stops the run too
  const bool resuming = !args.resume.empty();
  if (resuming && args.overwrite)
    throw CLI::ValidationError("--overwrite", "starts a run afresh; it cannot be combined with --resume");
  if (resuming && given(args, "--out"))
    throw CLI::ValidationError("--out", fmt::format("a resumed run writes into the directory --resume names ({}); "
                                                    "copy the directory first to continue it elsewhere", args.resume));
  if (resuming && io.parse_only) return;  // the remaining checks need the checkpoint's config
  train::TrainConfig config = resuming ? resumed_config(args) : fresh_config(args);
  check_flag_combinations(args, config);
  if (io.parse_only) return;
  if (!resuming) refuse_existing_run(args, config.out);  // before anything is made
  // The run stores each data path with its file's SHA-256 (train/run_data.h): of the files the
  // user named, all of a fresh run's, and on --resume those given again.
  for (auto [flag, which] : {std::pair{"--data", train::RunDataFile::data},
                             std::pair{"--val-data", train::RunDataFile::val_data},
                             std::pair{"--tokenizer", train::RunDataFile::tokenizer}})
    if (config.tokenizer == train::kLearnedTokenizer && which == train::RunDataFile::tokenizer)
      train::learn_run_tokenizer(config, args.vocab_size);
    else if (!resuming || given(args, flag))
      train::record_data_hash(config, which);
  if (!resuming && !given(args, "--token-sep")) config.token_sep = train::default_token_sep(config);  // lists: words

#ifdef TAPEGRAD_WITH_MPI
  if (dist::launched()) return run_rank(args, config, resuming, io);
#endif
  train_run(args, config, resuming, io, nullptr);
}

}  // namespace

void add_train_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "train", "Train a Transformer encoder (--arch gpt: a decoder-only language model; --arch seq2seq: an "
               "encoder-decoder, 2000 steps by default). With no options: reverse sequences of 1-8 digits, 600 steps, "
               "reaching 100% exact match on 512 held-out sequences");
  auto args = std::make_shared<TrainArgs>();
  using C = train::TrainConfig;
  flag(sub, *args, "--task", &C::task, task_help())
      ->check(task_name())
      ->check(utf8_path());
  flag(sub, *args, "--data", &C::data, "lm: a UTF-8 text file (default: the built-in grammar corpus); file: a .tsv "
                                       "or .jsonl labelled file")
      ->check(utf8_path());
  const int64_t max_length = train::kMaxSequenceLength;
  flag(sub, *args, "--min-len", &C::min_len, read_by("min_len", "shortest sequence"))
      ->check(integer_in(1, max_length));
  flag(sub, *args, "--max-len", &C::max_len, read_by("max_len", "longest sequence"))
      ->check(integer_in(1, max_length));
  flag(sub, *args, "--modulus", &C::modulus, read_by("modulus", "the modulus"))->check(integer_in(2, train::kMaxModulus));
  flag(sub, *args, "--block-size", &C::block_size, read_by("block_size", "tokens per window"))
      ->check(integer_in(1, max_length));
  flag(sub, *args, "--tokenizer", &C::tokenizer, read_by("tokenizer", "a BPE tok.json, or bpe: learn one"))
      ->check(utf8_path());
  sub->add_option("--vocab-size", args->vocab_size, "--tokenizer bpe: its tokens")
      ->check(integer_in(data::BpeTokenizer::kByteTokens + 1, data::BpeTokenizer::kMaxVocab));
  flag(sub, *args, "--val-examples", &C::val_examples, read_by("val_examples", "validation examples"))
      ->check(integer_in(1, train::kMaxExamples));
  flag(sub, *args, "--val-fraction", &C::val_fraction, read_by("val_fraction", "the share of --data held out for validation"))
      ->check(open_fraction());
  flag(sub, *args, "--val-data", &C::val_data, read_by("val_data", "a separate validation file (.tsv/.jsonl), scored whole; its tokens "
                                                                   "must all be in --data"))
      ->check(utf8_path());
  flag(sub, *args, "--token-sep", &C::token_sep, "seq2seq token separator")  // short: --help fits 4 KiB
      ->check(CLI::Validator([](std::string& sep) { return train::token_sep_problem(sep); }, ""));
  flag(sub, *args, "--ignore-tokens", &C::ignore_tokens, "output tokens whose positions the accuracies leave out, "
                                                         "comma-separated ('$' or 'PAD,$'); eval uses them too")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(token_name());
  flag(sub, *args, "--arch", &C::arch, arch_help())->check(CLI::IsMember(train::arch_names()));
  CLI::Option* tie = sub->add_flag("--tie-weights", args->config.tie_weights,
                                   "--arch gpt: the output head is the token embedding (no head of its own)");
  args->flags.push_back({"--tie-weights", tie, [](C& to, const C& from) { to.tie_weights = from.tie_weights; }});
  flag(sub, *args, "--d-model", &C::d_model, "model width")->check(integer_in(1, train::kMaxDModel));
  flag(sub, *args, "--heads", &C::heads, "attention heads (must divide --d-model)")
      ->check(integer_in(1, train::kMaxDModel));
  flag(sub, *args, "--layers", &C::layers, "encoder layers (gpt blocks; seq2seq: encoder and decoder layers each)")
      ->check(integer_in(1, train::kMaxLayers));
  flag(sub, *args, "--ff", &C::ff, "feed-forward width")->check(integer_in(1, train::kMaxFeedForward));
  flag(sub, *args, "--dropout", &C::dropout, "dropout probability")->check(number_in(0, train::kMaxDropout));
  CLI::Option* steps = sub->add_option_function<std::string>(
      "--steps", [to = args.get()](const std::string& text) { set_steps(text, *to); },
      "optimizer updates; with --resume also +N: N more than the checkpoint has done");
  steps->default_str(std::to_string(C{}.steps))->check(step_count());
  args->flags.push_back({"--steps", steps, [](C& to, const C& from) { to.steps = from.steps; }});
  flag(sub, *args, "--batch-size", &C::batch_size, "examples per micro-batch")
      ->check(integer_in(1, train::kMaxBatchSize));
  flag(sub, *args, "--grad-accum", &C::grad_accum, "micro-batches per update")
      ->check(integer_in(1, train::kMaxBatchSize));
  flag(sub, *args, "--lr", &C::lr, "peak learning rate")->check(positive_number());
  flag(sub, *args, "--warmup", &C::warmup, "linear warmup steps, then cosine decay (default: min(50, steps / 10))")
      ->check(integer_in(0, train::kMaxSteps));
  flag(sub, *args, "--weight-decay", &C::weight_decay, "AdamW weight decay")->check(non_negative_number());
  flag(sub, *args, "--clip", &C::clip, "max gradient norm (0: no clipping)")->check(non_negative_number());
  flag(sub, *args, "--eval-every", &C::eval_every, "steps between evaluations and checkpoints (0: at the end)")
      ->check(integer_in(0, train::kMaxSteps));
  flag(sub, *args, "--log-every", &C::log_every, "steps between log lines when not on a terminal")
      ->check(integer_in(1, train::kMaxSteps));
  flag(sub, *args, "--eval-batches", &C::eval_batches, "validation batches per evaluation (0: all)")
      ->check(integer_in(0, train::kMaxSteps));
  flag(sub, *args, "--device", &C::device, "cpu or cuda[:N]")->check(device_name());
  flag(sub, *args, "--seed", &C::seed, "seeds the data, the initial weights and dropout")->check(seed_number());
  flag(sub, *args, "--out", &C::out, "run directory: checkpoint.safetensors, metrics.jsonl, metrics.csv, report.html")
      ->check(utf8_path());
  CLI::Option* composed = sub->add_flag("--composed", args->config.composed,
                                        "the composed (teaching) path: every op of the model on the tape, no fused "
                                        "ops (same results, slower)");
  args->flags.push_back({"--composed", composed, [](C& to, const C& from) { to.composed = from.composed; }});
  CLI::Option* recompute = sub->add_flag("--checkpoint-activations", args->config.checkpoint_activations,
                                         "recompute each Transformer layer's activations in the backward instead "
                                         "of keeping them (less memory, about one more forward per step; same "
                                         "losses)");
  args->flags.push_back({"--checkpoint-activations", recompute, [](C& to, const C& from) {
                           to.checkpoint_activations = from.checkpoint_activations;
                         }});
  flag(sub, *args, "--numerics", &C::numerics,
       "version of the float32 CPU arithmetic and of dropout's draw (1: before gelu's faster erf, 2: before "
       "dropout's 16-bit draws)")
      ->check(integer_in(kFirstNumerics, kLatestNumerics));
  sub->add_option("--resume", args->resume, "continue the run in this directory (or the directory of this "
                                            "checkpoint file), writing there")
      ->check(utf8_path());
  sub->add_flag("--overwrite", args->overwrite, "start afresh in an --out directory that holds a run, removing "
                                                "its checkpoint and metrics");
  sub->add_option("--threads", args->threads, "OpenMP threads (0: OpenMP's default)")
      ->capture_default_str()
      ->check(thread_count());
  sub->callback([args, io] { run_train(*args, *io); });
}

}  // namespace tg::cli
