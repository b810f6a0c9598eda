#pragma once
// The fields of an untrusted JSON object (a checkpoint's config and model metadata, the GEMM
// tuning cache), read strictly: each must have exactly its type, since a conversion would hide a
// hand edit or a foreign file. An integer field takes a JSON integer its C++ type holds (not 16.7,
// not "16", not 1e3); a number field any JSON number; a flag true or false; a text field a string;
// a list of texts an array of strings. A wrong one throws tg::Error(op, "field \"<key>\" must be
// <kind>, got <the value, or its excerpt>"). nlohmann's own exceptions never get out.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tg {

// When `object` has `key`, its value into `value`; else `value` is left as it was.
void read_field(const nlohmann::json& object, const char* key, int64_t& value, const char* op);
void read_field(const nlohmann::json& object, const char* key, uint64_t& value, const char* op);
void read_field(const nlohmann::json& object, const char* key, double& value, const char* op);
void read_field(const nlohmann::json& object, const char* key, bool& value, const char* op);
void read_field(const nlohmann::json& object, const char* key, std::string& value, const char* op);
void read_field(const nlohmann::json& object, const char* key, std::vector<std::string>& value, const char* op);

// Throws tg::Error(op, "has no field \"<key>\"") naming every key `object` lacks.
void require_fields(const nlohmann::json& object, std::initializer_list<const char*> keys, const char* op);

// A JSON value as a message quotes it: its excerpt (core/io/untrusted_text.h), a string marked
// as one ("\"16\" (a string)").
std::string json_excerpt(const nlohmann::json& value);

// `text` parsed as a JSON object, nested at most `max_depth` deep (json_too_deep): "<what> is not
// valid JSON: ...", "<what> must be a JSON object, got ..." otherwise.
nlohmann::json parse_object(const std::string& text, const std::string& what, const char* op, int max_depth = 4);

}  // namespace tg
