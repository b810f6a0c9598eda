// tapegrad import: a run with its weights replaced by a PyTorch state_dict (train/pytorch_export.h).
#include <string>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"
#include "core/io/output_file.h"
#include "train/checkpoint.h"
#include "train/pytorch_export.h"
#include "train/run_data.h"
#include "train/run_lock.h"

namespace tg::cli {

namespace {

struct ImportArgs {
  std::string checkpoint;
  std::string state_dict;
  std::string out;
};

// An import makes a new run in a directory: it never replaces one.
void refuse_existing_import(const std::string& out, const std::filesystem::path& written) {
  if (std::error_code ec; std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec))
    throw CLI::ValidationError("--out", fmt::format("{} is a file, not a directory", out));
  if (std::filesystem::exists(written))
    throw CLI::ValidationError("--out", fmt::format("{} already holds a run ({}); import into a new directory", out,
                                                    written.filename().string()));
}

// A tokenizer file the run keeps in its directory (--tokenizer bpe's tokenizer.json) goes with it
// into the new run, byte for byte, where the config names it (its recorded SHA-256 holds there).
// A relative path that leads out of the run is refused: the copy would be written outside the new
// run (tapegrad stores the path of a file outside a run as an absolute one, train/config.h).
void copy_run_tokenizer(train::TrainConfig config, const std::filesystem::path& from, const std::string& to) {
  if (config.tokenizer.empty() || std::filesystem::path(config.tokenizer).is_absolute()) return;
  const std::filesystem::path inside = std::filesystem::path(config.tokenizer).lexically_normal();
  if (inside.empty() || *inside.begin() == ".." || !inside.has_filename())
    throw Error("import", fmt::format("{}: the run's tokenizer \"{}\" is a relative path out of the run's directory; "
                                      "a run names a file of its own directory only", from.string(),
                                      config.tokenizer));
  config.out = from.string();
  const std::string bytes = train::open_run_data(config, train::RunDataFile::tokenizer).read_all();
  const std::filesystem::path copy = std::filesystem::path(to) / inside;
  std::filesystem::create_directories(copy.parent_path());
  write_file_atomically("import", copy, bytes);
}

void run_import(const ImportArgs& args, Io& io) {
  if (io.parse_only) return;
  const std::filesystem::path file = train::checkpoint_file(args.checkpoint);
  const std::filesystem::path written = std::filesystem::path(args.out) / "checkpoint.safetensors";
  refuse_existing_import(args.out, written);
  io.activity = "loading " + file.string();
  train::Checkpoint c = train::import_pytorch(train::load_checkpoint(file), args.state_dict);
  std::filesystem::create_directories(args.out);
  const train::RunLock lock("import", args.out);
  refuse_existing_import(args.out, written);  // again: another process may have made one meanwhile
  copy_run_tokenizer(c.config, file.parent_path(), args.out);
  c.config.out = args.out;
  train::save_checkpoint(written, c);
  fmt::print(io.out, "import: {} into the model of {} (task {}, step {}) -> {}\n", args.state_dict, file.string(),
             c.config.task, c.step, written.string());
}

}  // namespace

void add_import_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("import", "Make a run with a PyTorch state_dict's weights (as tapegrad export's "
                                               "model saves it), the rest of the run as it was");
  auto args = std::make_shared<ImportArgs>();
  sub->add_option("checkpoint", args->checkpoint, "the run (a checkpoint file or a run directory) whose model, "
                                                  "config and vocabularies to use")->required();
  sub->add_option("state_dict", args->state_dict, "a safetensors file with the model's state_dict in PyTorch's "
                                                  "names")->required();
  sub->add_option("--out", args->out, "the new run directory (must not hold a run)")->required()->check(utf8_path());
  sub->callback([args, io] { run_import(*args, *io); });
}

}  // namespace tg::cli
