// tapegrad export: a run's model for PyTorch (train/pytorch_export.h).
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/commands.h"
#include "train/checkpoint.h"
#include "train/pytorch_export.h"
#include "train/registry/registry.h"

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
  const std::vector<std::string> written = train::export_pytorch(c, file.parent_path(), args.out);
  const std::filesystem::path out(args.out);
  fmt::print(io.out, "export: {} (task {}, arch {}, step {}) -> {}: {}\n", file.string(), c.config.task,
             c.model_config.arch, c.step, args.out, fmt::join(written, ", "));
  fmt::print(io.out, "  in Python: import sys; sys.path.insert(0, \"{}\"); import tapegrad_model; "
                     "model, config = tapegrad_model.load(\"{}\"){}\n", out.string(), out.string(),
             train::task_named(c.config.task).text
                 ? fmt::format("; text = tapegrad_model.load_text_tokens(\"{}\")", out.string())
                 : "");
}

}  // namespace

void add_export_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  const std::string archs = train::one_of(train::arch_names_where(&train::Arch::exports_to_pytorch));
  CLI::App* sub = app.add_subcommand("export", fmt::format("Write a run's model ({}) for PyTorch: its state_dict "
                                                           "(safetensors), the model as a Python file, the "
                                                           "vocabularies, and a BPE run's tokenizer.json", archs));
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
