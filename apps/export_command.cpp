// tapegrad export: a run's model for PyTorch (train/pytorch_export.h).
#include <string>

#include <fmt/format.h>

#include "apps/commands.h"
#include "train/checkpoint.h"
#include "train/pytorch_export.h"

namespace tg::cli {

namespace {

struct ExportArgs {
  std::string checkpoint;
  std::string format;
  std::string out;
};

void run_export(const ExportArgs& args, Io& io) {
  if (io.parse_only) return;
  const std::filesystem::path file = train::checkpoint_file(args.checkpoint);
  io.activity = "loading " + file.string();
  const train::Checkpoint c = train::load_checkpoint(file);
  io.activity = "exporting to " + args.out;
  train::export_pytorch(c, args.out);
  const std::filesystem::path out(args.out);
  fmt::print(io.out, "export: {} (task {}, step {}) -> {}: model.safetensors, config.json, tapegrad_model.py\n",
             file.string(), c.config.task, c.step, args.out);
  fmt::print(io.out, "  in Python: import sys; sys.path.insert(0, \"{}\"); import tapegrad_model; "
                     "model, config = tapegrad_model.load(\"{}\")\n", out.string(), out.string());
}

}  // namespace

void add_export_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("export", "Write a run's model for PyTorch: its state_dict (safetensors), the "
                                               "model as a Python file, and the vocabularies");
  auto args = std::make_shared<ExportArgs>();
  sub->add_option("checkpoint", args->checkpoint, "a checkpoint file or a run directory")->required();
  sub->add_option("--format", args->format, "the format to write (pytorch)")
      ->required()
      ->check(CLI::IsMember({"pytorch"}));
  sub->add_option("out", args->out, "the directory to write, whole (an earlier export there is replaced; a "
                                    "directory holding other files is refused)")->required();
  sub->callback([args, io] { run_export(*args, *io); });
}

}  // namespace tg::cli
