// The browser has no files. The Trainer's task code can reach three functions of the sources the
// wasm build leaves out (cmake/TapegradWasm.cmake: they need OpenSSL's SHA-256), and only for a
// run that reads a data file or a tokenizer, which the lab refuses first (lab_training.h). Here
// they are errors saying so.
#include "core/error.h"
#include "data/bpe_file.h"
#include "train/run_data.h"

namespace tg {

namespace {

[[noreturn]] void no_files(const char* what) {
  throw Error("lab", std::string("the page reads no files (") + what + "): it trains the synthetic tasks and the "
                                                                      "built-in grammar corpus");
}

}  // namespace

data::BpeTokenizer data::load_bpe_tokenizer(const InputFile&) { no_files("a tokenizer"); }
std::string data::bpe_sha256(const BpeTokenizer&) { no_files("a tokenizer's hash"); }
InputFile train::open_run_data(const TrainConfig&, RunDataFile) { no_files("a run's data file"); }

}  // namespace tg
