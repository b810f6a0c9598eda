#include "data/json_line.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/untrusted_text.h"

namespace tg::data {

namespace {

using Json = nlohmann::json;

// Fills the fields of a line's object as the parser reports its values. Depth 0 is the line's
// value (an object, or an error), depth 1 inside that object, depth 2 inside one of its values
// (an array's items); deeper values are checked for repeated keys but not kept.
class LineScan : public nlohmann::json_sax<Json> {
 public:
  LineScan(const JsonLine& line, std::map<std::string, JsonLineField>& fields) : line_(line), fields_(fields) {}
  bool start_object(size_t) override {
    value("object", "");
    keys_.open();
    ++depth_;
    return true;
  }
  bool end_object() override {
    keys_.close();
    --depth_;
    return true;
  }
  bool key(string_t& name) override {
    if (!keys_.add(name)) line_.fail(fmt::format("the key \"{}\" appears twice in one object", excerpt(name)));
    if (depth_ == 1) field_ = &(fields_[name] = JsonLineField{});
    return true;
  }
  bool start_array(size_t) override {
    value("array", "");
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool string(string_t& s) override { return value("string", s); }
  // A JSON integer has one way to be written but for "-0": the lexer reports numbers with a
  // sign through number_integer and those without through number_unsigned, so an integer's
  // text is its value's, and number_integer's 0 was written "-0". Other numbers come with their
  // text.
  bool number_integer(number_integer_t v) override { return value("number", v == 0 ? "-0" : std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value("number", std::to_string(v)); }
  bool number_float(number_float_t, const string_t& text) override { return value("number", text); }
  bool boolean(bool) override { return value("boolean", ""); }
  bool null() override { return value("null", ""); }
  bool binary(binary_t&) override { return value("binary", ""); }  // not in JSON text
  bool parse_error(size_t, const std::string&, const Json::exception& e) override {
    // parse_error, or out_of_range for a number such as 1e400
    line_.fail(fmt::format("bad JSON: {}", excerpt(e.what(), 160)));
  }

 private:
  // A value of type `type` starts at depth_.
  bool value(const char* type, std::string_view text) {
    if (depth_ == 0) {
      if (std::string_view(type) != "object") line_.fail("expected a JSON object with \"input\" and \"output\"");
    } else if (depth_ == 1) {
      field_->type = type;
      field_->text = text;
    } else if (depth_ == 2 && std::string_view(field_->type) == "array") {
      if (std::string_view(type) == "string" || std::string_view(type) == "number") {
        if (field_->other_item == std::string::npos) field_->items.emplace_back(text);
      } else if (field_->other_item == std::string::npos) {
        field_->other_item = field_->items.size();
        field_->other_item_type = type;
      }
    }
    return true;
  }

  const JsonLine& line_;
  std::map<std::string, JsonLineField>& fields_;
  JsonObjectKeys keys_;
  int depth_ = 0;
  JsonLineField* field_ = nullptr;  // the top-level field whose value is being read
};

}  // namespace

JsonLine::JsonLine(std::string_view line, const char* op, std::string where, int max_depth)
    : op_(op), where_(std::move(where)) {
  if (auto at = json_too_deep(line, max_depth))
    fail(fmt::format("arrays and objects nest more than {} deep (at column {})", max_depth, *at + 1));
  LineScan scan(*this, fields_);
  Json::sax_parse(line, &scan);
}

const JsonLineField& JsonLine::field(const std::string& key) const {
  static const JsonLineField missing;
  auto it = fields_.find(key);
  return it == fields_.end() ? missing : it->second;
}

void JsonLine::fail(const std::string& what) const { throw Error(op_, fmt::format("{}: {}", where_, what)); }

}  // namespace tg::data
