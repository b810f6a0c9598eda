#pragma once
// One line of a JSONL data file (labelled files, pair files): a JSON object whose top-level
// fields the reader picks. It is read with nlohmann's SAX interface, which builds no tree:
//   - a key that appears twice in one object is an error (a tree would silently keep one value);
//   - a number is the text written in the file: 1.0, 1e0 and 1e23 stay three different texts
//     (a parsed double would print all of them alike, or another number);
//   - memory is the fields kept, not a tree of the whole line.
// Errors are tg::Error(op, "<where>: ...") with `where` "file:line".
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tg::data {

struct JsonLineField {
  const char* type = "null";        // "string", "number", "array", "object", "boolean" or "null"
  std::string text;                 // a string's value, a number's text as written
  std::vector<std::string> items;   // an array's strings and numbers, as text, in order
  // The first array item that is neither a string nor a number: its index and type.
  size_t other_item = std::string::npos;
  const char* other_item_type = "";
};

class JsonLine {
 public:
  // Parses `line` (one JSON object); arrays and objects nested more than max_depth deep are
  // refused before parsing.
  JsonLine(std::string_view line, const char* op, std::string where, int max_depth = 8);

  // The top-level field `key`; a missing one is a field of type "null" (JSON's null) and
  // has() tells them apart.
  const JsonLineField& field(const std::string& key) const;
  bool has(const std::string& key) const { return fields_.contains(key); }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const char* op_;
  std::string where_;
  std::map<std::string, JsonLineField> fields_;
};

}  // namespace tg::data
