#include "core/io/json_fields.h"

#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/untrusted_text.h"

namespace tg {

namespace {

using nlohmann::json;

[[noreturn]] void wrong(const char* op, const char* key, const char* kind, const json& value) {
  throw Error(op, fmt::format("field \"{}\" must be {}, got {}", key, kind, json_excerpt(value)));
}

// The value at `key`, or null when there is none.
const json* find_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace

std::string json_excerpt(const json& value) {
  const std::string text = excerpt(value.dump(-1, ' ', false, json::error_handler_t::replace));
  return value.is_string() ? text + " (a string)" : text;
}

void read_field(const json& object, const char* key, int64_t& value, const char* op) {
  const json* v = find_field(object, key);
  if (v == nullptr) return;
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    wrong(op, key, "an integer in [-2^63, 2^63)", *v);
  if (!v->is_number_integer()) wrong(op, key, "an integer", *v);
  value = v->get<int64_t>();
}

void read_field(const json& object, const char* key, uint64_t& value, const char* op) {
  const json* v = find_field(object, key);
  if (v == nullptr) return;
  if (!v->is_number_unsigned()) wrong(op, key, "an integer in [0, 2^64)", *v);
  value = v->get<uint64_t>();
}

void read_field(const json& object, const char* key, double& value, const char* op) {
  const json* v = find_field(object, key);
  if (v == nullptr) return;
  if (!v->is_number()) wrong(op, key, "a number", *v);
  value = v->get<double>();
}

void read_field(const json& object, const char* key, bool& value, const char* op) {
  const json* v = find_field(object, key);
  if (v == nullptr) return;
  if (!v->is_boolean()) wrong(op, key, "true or false", *v);
  value = v->get<bool>();
}

void read_field(const json& object, const char* key, std::string& value, const char* op) {
  const json* v = find_field(object, key);
  if (v == nullptr) return;
  if (!v->is_string()) wrong(op, key, "a string", *v);
  value = v->get<std::string>();
}

void read_field(const json& object, const char* key, std::vector<std::string>& value, const char* op) {
  const json* v = find_field(object, key);
  if (v == nullptr) return;
  if (!v->is_array()) wrong(op, key, "an array of strings", *v);
  std::vector<std::string> strings;
  for (const json& item : *v) {
    if (!item.is_string()) wrong(op, key, "an array of strings", *v);
    strings.push_back(item.get<std::string>());
  }
  value = std::move(strings);
}

void require_fields(const json& object, std::initializer_list<const char*> keys, const char* op) {
  std::vector<std::string> missing;
  for (const char* key : keys)
    if (!object.contains(key)) missing.push_back(fmt::format("\"{}\"", key));
  if (!missing.empty())
    throw Error(op, fmt::format("has no {} {}", missing.size() == 1 ? "field" : "fields", fmt::join(missing, ", ")));
}

json parse_object(const std::string& text, const std::string& what, const char* op, int max_depth) {
  if (auto at = json_too_deep(text, max_depth))
    throw Error(op, fmt::format("{} nests arrays and objects more than {} deep (at byte {})", what, max_depth, *at));
  json object;
  try {
    object = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number such as 1e400
    throw Error(op, fmt::format("{} is not valid JSON: {}", what, excerpt(e.what(), 160)));
  }
  if (!object.is_object()) throw Error(op, fmt::format("{} must be a JSON object, got {}", what, json_excerpt(object)));
  return object;
}

}  // namespace tg
