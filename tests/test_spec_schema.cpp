// The published JSON Schema (specs/atomcheck-spec.schema.json) against the loader:
// the schema is valid JSON, names exactly the operation kinds the loader accepts (both
// lists are read, neither is copied here, so they cannot drift apart), every example
// validates against it, and inputs the loader rejects for a schema-level reason (unknown
// field, wrong type, missing loop bound, bad count) are rejected by the schema too. The
// validator below implements the subset of JSON Schema 2020-12 the file uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "specs/spec.hpp"

namespace atomcheck::spec {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

const json& schema() {
  static const json s = read_json(std::string(ATOMCHECK_SOURCE_DIR) + "/specs/atomcheck-spec.schema.json");
  return s;
}

// Validates `v` against `s`; appends one line per violation to `errors`.
class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}

  bool valid(const json& v, const json& s, const std::string& at, std::vector<std::string>& errors) const {
    std::size_t before = errors.size();
    check(v, s, at, errors);
    return errors.size() == before;
  }

 private:
  const json& resolve(const json& s) const {
    if (!s.is_object() || !s.contains("$ref")) return s;
    std::string ref = s["$ref"];
    EXPECT_EQ(ref.rfind("#/$defs/", 0), 0u) << ref;
    return resolve(root_["$defs"][ref.substr(8)]);
  }

  // The one pattern the schema uses (names), checked by hand: std::regex trips GCC 12's
  // warnings under ASan.
  static bool matches_pattern(const std::string& str, const json& pattern) {
    EXPECT_EQ(pattern.get<std::string>(), "^[^\\s.=,\"]+$") << "unsupported pattern";
    if (str.empty()) return false;
    for (char c : str)
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '.' || c == '=' ||
          c == ',' || c == '"')
        return false;
    return true;
  }

  static bool has_type(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "boolean") return v.is_boolean();
    if (t == "number") return v.is_number();
    if (t == "null") return v.is_null();
    ADD_FAILURE() << "schema uses unsupported type " << t;
    return false;
  }

  void check(const json& v, const json& s0, const std::string& at, std::vector<std::string>& errors) const {
    const json& s = resolve(s0);
    static const std::set<std::string> known = {
        "$schema", "$id", "title", "description", "type", "const", "enum", "properties",
        "additionalProperties", "required", "items", "minItems", "maxItems", "minProperties",
        "maxProperties", "propertyNames", "oneOf", "$ref", "minimum", "maximum", "minLength",
        "maxLength", "pattern", "$defs"};
    for (const auto& [k, _] : s.items())
      if (!known.count(k)) ADD_FAILURE() << "schema keyword not supported by the test validator: " << k;
    if (s.contains("type") && !has_type(v, s["type"])) {
      errors.push_back(at + ": expected " + s["type"].get<std::string>());
      return;
    }
    if (s.contains("const") && v != s["const"]) errors.push_back(at + ": expected " + s["const"].dump());
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
      errors.push_back(at + ": not in " + s["enum"].dump());
    if (v.is_number_integer()) {
      if (s.contains("minimum") && v.get<std::int64_t>() < s["minimum"].get<std::int64_t>()) errors.push_back(at + ": below minimum");
      if (s.contains("maximum") && v.get<std::int64_t>() > s["maximum"].get<std::int64_t>()) errors.push_back(at + ": above maximum");
    }
    if (v.is_string()) {
      std::string str = v;
      if (s.contains("minLength") && str.size() < s["minLength"].get<std::size_t>()) errors.push_back(at + ": too short");
      if (s.contains("maxLength") && str.size() > s["maxLength"].get<std::size_t>()) errors.push_back(at + ": too long");
      if (s.contains("pattern") && !matches_pattern(str, s["pattern"]))
        errors.push_back(at + ": does not match " + s["pattern"].get<std::string>());
    }
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>()) errors.push_back(at + ": too few items");
      if (s.contains("maxItems") && v.size() > s["maxItems"].get<std::size_t>()) errors.push_back(at + ": too many items");
      if (s.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i) check(v[i], s["items"], at + "/" + std::to_string(i), errors);
    }
    if (v.is_object()) {
      if (s.contains("minProperties") && v.size() < s["minProperties"].get<std::size_t>()) errors.push_back(at + ": too few members");
      if (s.contains("maxProperties") && v.size() > s["maxProperties"].get<std::size_t>()) errors.push_back(at + ": too many members");
      if (s.contains("required"))
        for (const auto& r : s["required"])
          if (!v.contains(r.get<std::string>())) errors.push_back(at + ": missing " + r.get<std::string>());
      for (const auto& [k, val] : v.items()) {
        std::string sub = at + "/" + k;
        if (s.contains("propertyNames")) check(json(k), s["propertyNames"], sub, errors);
        if (s.contains("properties") && s["properties"].contains(k)) {
          check(val, s["properties"][k], sub, errors);
        } else if (s.contains("additionalProperties")) {
          const json& ap = s["additionalProperties"];
          if (ap.is_boolean()) {
            if (!ap.get<bool>()) errors.push_back(sub + ": unknown member");
          } else {
            check(val, ap, sub, errors);
          }
        }
      }
    }
    if (s.contains("oneOf")) {
      int matches = 0;
      for (const auto& alt : s["oneOf"]) {
        std::vector<std::string> e;
        if (valid(v, alt, at, e)) ++matches;
      }
      if (matches != 1) errors.push_back(at + ": matches " + std::to_string(matches) + " alternatives of oneOf");
    }
  }

  const json& root_;
};

TEST(SpecSchema, ListsExactlyTheLoadersOperationKinds) {
  std::set<std::string> in_schema;
  for (const auto& alt : schema()["$defs"]["operation"]["oneOf"])
    in_schema.insert(alt["properties"]["op"]["const"].get<std::string>());
  std::set<std::string> in_loader;
  for (std::string_view n : op_kind_names()) in_loader.insert(std::string(n));
  EXPECT_EQ(in_schema, in_loader);
  EXPECT_EQ(in_loader.size(), static_cast<std::size_t>(OpKind::write_unlock) + 1);
  EXPECT_EQ(schema()["properties"]["atomcheck"]["const"], kFormatVersion);
}

TEST(SpecSchema, EveryExampleValidatesAndLoads) {
  Validator val(schema());
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples")) {
    if (e.path().extension() != ".json") continue;
    ++n;
    SCOPED_TRACE(e.path().string());
    std::vector<std::string> errors;
    EXPECT_TRUE(val.valid(read_json(e.path().string()), schema(), "", errors))
        << (errors.empty() ? "" : errors.front());
    EXPECT_NO_THROW(load_spec(e.path().string()));
  }
  EXPECT_GE(n, 12);
}

TEST(SpecSchema, SchemaAndLoaderRejectTheSameShapeErrors) {
  Validator val(schema());
  const std::string ok = R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [{"name": "A", "ops": [OPS]}]EXTRA})";
  auto make = [&](const std::string& ops, const std::string& extra) {
    std::string t = ok;
    t.replace(t.find("OPS"), 3, ops);
    t.replace(t.find("EXTRA"), 5, extra);
    return t;
  };
  struct Case {
    std::string text;
    bool valid;
  };
  const std::vector<Case> cases = {
      {make(R"({"op": "load", "var": "x", "reg": "r"})", ""), true},
      {make(R"({"op": "loop", "bound": 2, "body": [{"op": "fence"}]})", ""), true},
      {make(R"({"op": "store", "var": "x", "value": {"+": [1, 2]}})", R"(, "expect": {"tso": {"checkers": {"velodrome": 2}}})"), true},
      {make(R"({"op": "fence", "order": 1})", ""), false},                                  // unknown field
      {make(R"({"op": "loop", "body": []})", ""), false},                                   // loop without bound
      {make(R"({"op": "loop", "bound": 10001, "body": []})", ""), false},                   // bound too large
      {make(R"({"op": "store", "var": "x", "value": 1.5})", ""), false},                    // wrong type
      {make(R"({"op": "mfence"})", ""), false},                                             // unknown operation
      {make("", R"(, "expect": {"sc": {"serializable": "yes"}})"), false},                  // bad enum
      {make("", R"(, "expect": {"sc": {"checkers": {"velodrome": "many"}}})"), false},      // bad count
      {make("", R"(, "expect": {"sc": {"failures": -1}})"), false},                         // negative count
      {make("", R"(, "locks": ["a b"])"), false},                                           // bad name
      {R"({"atomcheck": 2, "threads": [{"name": "A", "ops": []}]})", false},                 // version
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<std::string> errors;
    EXPECT_EQ(val.valid(json::parse(c.text), schema(), "", errors), c.valid) << (errors.empty() ? "" : errors.front());
    bool loads = true;
    try {
      parse_spec(c.text, "t.json");
    } catch (const SpecError&) {
      loads = false;
    }
    EXPECT_EQ(loads, c.valid);
  }
}

}  // namespace
}  // namespace atomcheck::spec
