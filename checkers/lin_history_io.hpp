// Reading recorded histories (docs/check-history.md): Jepsen's etcd logs as Porcupine's
// tests keep them (`INFO jepsen.util - 3 :invoke :cas [1 4]`), Jepsen/Knossos EDN
// histories (`{:process 0, :type :invoke, :f :write, :value 3}`; Porcupine's kv logs are
// these with a :key), and atomcheck's JSONL (one event a line). Real-time order is the
// order of the events in the file.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lin_history.hpp"

namespace atomcheck::lin {

enum class HistoryFormat : std::uint8_t { etcd, edn, jsonl };
std::optional<HistoryFormat> history_format_from_name(std::string_view name);  // etcd, edn (kv), jsonl
const char* history_format_name(HistoryFormat f);
// From the first line that is not blank: nullopt when it looks like none of them.
std::optional<HistoryFormat> detect_history_format(std::string_view text);

// How an operation ended: took effect with a result, did not take effect (Jepsen's
// :fail, dropped), ended without a known result (:info, a timeout: may or may not have
// taken effect, with any result), or never ended.
enum class OpStatus : std::uint8_t { ok, failed, unknown, pending };

// One operation as the file records it, before a specification gives its method a number.
struct RecordedOp {
  std::uint32_t client = 0;  // dense, in order of first appearance
  std::string method;
  bool keyed = false;
  std::int64_t key = kNone;
  std::vector<std::int64_t> args;
  std::int64_t result = kNone;
  OpStatus status = OpStatus::pending;
  std::uint64_t call = 0, ret = kPending;  // event positions; ret kPending unless ok or timed out
  std::uint32_t call_line = 0, ret_line = 0;  // 1-based; ret_line 0 when it never ended
};

// A file's operations in the order of their calls, and their values.
struct RecordedHistory {
  HistoryFormat format = HistoryFormat::jsonl;
  std::vector<RecordedOp> ops;
  std::vector<std::string> clients;  // client id -> as written
  std::shared_ptr<ValueTable> values = std::make_shared<ValueTable>();
  std::uint64_t events = 0;
};

// Bad input: the line (1-based, 0 for the whole file) and the field at fault.
struct HistoryError : std::runtime_error {
  HistoryError(std::uint32_t l, std::string f, const std::string& what)
      : std::runtime_error(what), line(l), field(std::move(f)) {}
  std::uint32_t line;
  std::string field;
};

// Throws HistoryError. `format` nullopt: detected from the content.
RecordedHistory read_history(std::string_view text, std::optional<HistoryFormat> format);
RecordedHistory read_history(std::istream& in, std::optional<HistoryFormat> format);

// The specification a format implies: etcd logs are a CAS register; EDN and JSONL a kv
// store when an operation has a key, else a CAS register (Knossos's default model).
std::string default_history_spec(const RecordedHistory& h);

// The history a specification decides: failed operations dropped, unknown and unended
// ones pending. An operation's arguments are its key (if any) then its args, in
// Operation::arg, arg2, arg3. `recorded[i]` is the RecordedOp of history[i]. Throws
// HistoryError for a method the specification has not or more than three arguments.
struct BoundHistory {
  History history;
  std::vector<std::uint32_t> recorded;
};
BoundHistory bind_history(const RecordedHistory& h, const Spec& spec);

// "cas(1, 4) -> true": an operation as a report shows it.
std::string describe_op(const RecordedOp& op, const ValueTable& values);

}  // namespace atomcheck::lin
