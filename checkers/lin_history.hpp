// Histories recorded by real systems (Jepsen, Porcupine, a service's own log) as
// linearizability sees them: their values, of any JSON type, turned into the integers a
// lin::Spec steps on, and the specifications such logs need beyond the built-in ones: a
// register with compare-and-swap, and a key-value store with etcd's read/write/cas and
// Porcupine's get/put/append. Readers of the file formats: checkers/lin_history_io.hpp;
// the formats and their meaning: docs/check-history.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "linearizability.hpp"

namespace atomcheck::lin {

// Integers stand for themselves (a counter adds them); null is kNone, the value of
// nothing; true and false are 1 and 0 (a cas answers with them); every other value (a
// string, a float, an array, an object) gets a dense id from kInternedBase up, equal
// values equal ids.
inline constexpr std::int64_t kInternedBase = std::int64_t{1} << 62;

// The values of one history. Filled while reading; read-only (so shared by threads) while
// deciding.
struct ValueTable {
  ValueTable() = default;
  ValueTable(const ValueTable&) = delete;  // texts point into the maps' keys
  ValueTable& operator=(const ValueTable&) = delete;

  // id - kInternedBase -> the value's text: a string's characters, another value's JSON
  // text (the key of its map entry, which stays where it is).
  std::vector<const std::string*> texts;
  std::vector<std::uint8_t> is_string;
  std::unordered_map<std::string, std::int64_t> strings;  // a string's characters -> id
  std::unordered_map<std::string, std::int64_t> ids;      // another value's JSON text -> id

  std::int64_t intern(const nlohmann::json& v);
  std::int64_t intern_string(std::string&& s);
  nlohmann::json value(std::int64_t id) const;
  // A string value's characters; nullptr for any other value.
  const std::string* string_at(std::int64_t id) const {
    if (id < kInternedBase) return nullptr;
    const std::size_t k = static_cast<std::size_t>(id - kInternedBase);
    return k < texts.size() && is_string[k] ? texts[k] : nullptr;
  }
  // A string's characters, any other value's JSON text: what an append concatenates.
  std::string text(std::int64_t id) const;
  // How a value is printed in a report: JSON text, null for kNone.
  std::string show(std::int64_t id) const { return value(id).dump(); }
};

// The specifications of check-history by name: every lin::make_spec name, and
//   cas-register  read, write(v), cas(from, to) -> true/false; holds null at first
//                 (etcd's model, as Porcupine's etcd tests write it);
//   kv            get(k), put(k, v), append(k, v) (Porcupine's kv: a key holds a string,
//                 absent reads as ""), read(k), write(k, v), cas(k, from, to) -> true/false
//                 (etcd's, absent reads as null); split by key (P-compositionality).
// `values` is the history's (kv compares appended strings by their text). nullptr for an
// unknown name.
std::unique_ptr<Spec> make_history_spec(std::string_view name, std::shared_ptr<const ValueTable> values);
// The names make_history_spec knows, for --help and error messages.
std::vector<std::string> history_spec_names();

}  // namespace atomcheck::lin
