// TrainConfig: the fields a run's checkpoint stores, and the data paths a run directory keeps.
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "train/config.h"

using namespace tg;
using namespace tg::train;

TEST_CASE("config: val_data and ignore_tokens round-trip, and a config written without them loads with defaults") {
  TrainConfig c;
  c.task = "file", c.data = "/d/t.jsonl", c.val_data = "v.jsonl", c.ignore_tokens = {"$", "a,b"};
  CHECK(config_from_json(to_json(c)) == c);
  nlohmann::json older = nlohmann::json::parse(to_json(c));
  older.erase("val_data");
  older.erase("ignore_tokens");
  const TrainConfig loaded = config_from_json(older.dump());
  CHECK(loaded.val_data.empty());
  CHECK(loaded.ignore_tokens.empty());
  CHECK(loaded.data == "/d/t.jsonl");

  c.task = "sort";
  CHECK_THROWS_WITH_AS(validate(c), doctest::Contains("val_data is read by task file only, not sort"), Error);
  c.val_data.clear(), c.ignore_tokens = {""};
  CHECK_THROWS_WITH_AS(validate(c), doctest::Contains("ignore_tokens: a token cannot be empty"), Error);
}

TEST_CASE("config: a run stores data paths relative to its directory when inside it, absolute otherwise") {
  namespace fs = std::filesystem;
  const fs::path cwd = fs::current_path();
  CHECK(path_for_run("runs/x/data.tsv", "runs/x") == "data.tsv");
  CHECK(path_for_run("runs/x/sub/../data.tsv", "runs/x/") == "data.tsv");
  CHECK(path_for_run("data.tsv", "runs/x") == (cwd / "data.tsv").string());
  CHECK(path_for_run("runs/xy/data.tsv", "runs/x") == (cwd / "runs/xy/data.tsv").string());
  CHECK(path_for_run("/d/data.tsv", "runs/x") == "/d/data.tsv");
  CHECK(path_for_run("../data.tsv", "/d/runs/x") == (cwd.parent_path() / "data.tsv").string());

  CHECK(path_in_run("data.tsv", "copy/of/x") == fs::path("copy/of/x/data.tsv"));
  CHECK(path_in_run("/d/data.tsv", "copy/of/x") == fs::path("/d/data.tsv"));
}
