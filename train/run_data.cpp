#include "train/run_data.h"

#include <openssl/evp.h>

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::train {

namespace {

constexpr const char* kRunDataOp = "data";

struct DataField {
  const std::string TrainConfig::*path;
  std::string TrainConfig::*sha256;
  const char* flag;
  const char* remedy;  // what the user does about a changed file
};

DataField field_of(RunDataFile which) {
  switch (which) {
    case RunDataFile::data:
      return {&TrainConfig::data, &TrainConfig::data_sha256, "--data", "give the data file with --data"};
    case RunDataFile::val_data: break;
    case RunDataFile::tokenizer:
      return {&TrainConfig::tokenizer, &TrainConfig::tokenizer_sha256, "--tokenizer",
              "give the tokenizer file with --tokenizer"};
  }
  return {&TrainConfig::val_data, &TrainConfig::val_data_sha256, "--val-data", "give the data file with --data"};
}

}  // namespace

std::string sha256_hex(const InputFile& file) {
  const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) file.fail("cannot start a SHA-256");
  std::vector<char> chunk(size_t{1} << 16);
  uint64_t offset = 0;
  for (size_t n; (n = file.read_up_to(chunk.data(), chunk.size(), offset)) > 0; offset += n)
    if (EVP_DigestUpdate(context.get(), chunk.data(), n) != 1) file.fail("SHA-256 failed");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &size) != 1) file.fail("SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

void record_data_hash(TrainConfig& config, RunDataFile which) {
  const DataField f = field_of(which);
  const std::string& path = config.*f.path;
  config.*f.sha256 = path.empty() ? std::string() : sha256_hex(InputFile(kRunDataOp, path_in_run(path, config.out)));
}

InputFile open_run_data(const TrainConfig& config, RunDataFile which) {
  const DataField f = field_of(which);
  InputFile file(kRunDataOp, path_in_run(config.*f.path, config.out));
  const auto refuse = [&](const std::string& why) {
    throw Error(kRunDataOp, fmt::format("{} (the run's {}, stored as \"{}\"): {}: a path stored in a run is read only while "
                                 "its file is unchanged; {}", file.path().string(), f.flag, config.*f.path, why,
                                 f.remedy));
  };
  const std::string& stored = config.*f.sha256;
  if (stored.empty()) refuse("the run stores no SHA-256 of the file's content (it is from an older tapegrad)");
  const std::string now = sha256_hex(file);
  if (now != stored)
    refuse(fmt::format("the file's content is not the run's (SHA-256 {}... recorded, {}... now: the file changed)",
                       stored.substr(0, 16), now.substr(0, 16)));
  return file;
}

}  // namespace tg::train
