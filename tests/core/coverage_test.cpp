// The op registry covers every op: each op included by ops/ops.h has exactly one record
// (TG_OP_CASE in its folder, ops/op_registry.h), each record is an op of ops/ops.h, and each op
// folder's header is in ops/ops.h. The records' gradchecks run in `tapegrad gradcheck`
// (tests/train/cli_test.cpp).
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "ops/op_registry.h"
#include "test_util.h"

namespace {

const std::filesystem::path ops_dir = std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "ops";

// The op of each `#include "ops/.../<op>/<op>.h"` line of ops/ops.h.
std::vector<std::string> ops_in_ops_h() {
  std::ifstream in(ops_dir / "ops.h");
  REQUIRE(in);
  const std::regex include(R"re(#include "ops/(.*/)?([a-z0-9_]+)/([a-z0-9_]+)\.h")re");
  std::vector<std::string> ops;
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, include)) {
      INFO(line);
      CHECK(m[2] == m[3]);  // ops/<op>/<op>.h
      ops.push_back(m[3]);
    }
  return ops;
}

}  // namespace

TEST_CASE("coverage: every op in ops/ops.h has exactly one registry record, and every record is such an op") {
  const std::vector<std::string> ops = ops_in_ops_h();
  CHECK(ops.size() >= 5);  // add, contiguous, expand, reshape, sum at least
  std::map<std::string, int> records;
  for (const tg::OpCase& c : tg::op_cases()) {
    ++records[c.op];
    INFO(c.op);
    CHECK(!c.doc.summary.empty());
    CHECK(c.doc.summary.find('\n') == std::string::npos);
  }
  for (const std::string& op : ops) {
    INFO("op ", op, ": a TG_OP_CASE(", op, ") in ops/**/", op, "/", op, "_case.cpp");
    CHECK(records[op] == 1);
  }
  for (const auto& record : records) {
    const std::string& op = record.first;  // not a structured binding: INFO captures it (clang 14)
    INFO("registry record ", op, " is not an op of ops/ops.h");
    CHECK(std::find(ops.begin(), ops.end(), op) != ops.end());
  }
}

TEST_CASE("coverage: every op folder's header is in ops/ops.h") {
  const std::vector<std::string> ops = ops_in_ops_h();
  std::vector<std::string> missing;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(ops_dir)) {
    const std::string folder = entry.path().filename();
    if (entry.is_directory() && std::filesystem::exists(entry.path() / (folder + ".h")) &&
        std::find(ops.begin(), ops.end(), folder) == ops.end())
      missing.push_back(folder);
  }
  INFO("op folders missing from ops/ops.h: ", fmt::format("{}", fmt::join(missing, ", ")));
  CHECK(missing.empty());
}

TEST_CASE("coverage: every op is documented: forward and the backward rule of each differentiable input") {
  for (const tg::OpCase& c : tg::op_cases()) {
    INFO("op ", c.op, ": its TG_OP_DOC(", c.op, ") in ops/**/", c.op, "/", c.op, ".cpp");
    CHECK(!c.doc.forward_text.empty());
    CHECK(!c.doc.forward_tex.empty());
    CHECK(tg::find_op_doc(c.op) == &c.doc);
    // An op whose case differentiates an input has backward rules (cat: one for all its inputs).
    size_t differentiable = 0;
    for (const tg::Tensor& t : c.inputs()) differentiable += t.defined() && t.requires_grad();
    CHECK(c.doc.backward.empty() == (differentiable == 0));
    for (const tg::BackwardRuleDoc& rule : c.doc.backward) {
      INFO("input ", rule.input);
      CHECK(!rule.input.empty());
      CHECK(!rule.text.empty());
      CHECK(!rule.tex.empty());
      for (const std::string* line : {&c.doc.forward_text, &rule.text, &rule.tex})
        CHECK(line->find('\n') == std::string::npos);
    }
  }
  CHECK(tg::find_op_doc("no_such_op") == nullptr);
  CHECK(tg::find_op_doc("view") == tg::find_op_doc("reshape"));  // an alias
}
