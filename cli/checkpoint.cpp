// Checkpoint files (see checkpoint.hpp): the JSON format, its checksum and checks, and
// the atomic write.
#include "cli/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace atomcheck::cli {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "atomcheck checkpoint";

// FNV-1a, 64 bits: catches a flipped byte or a cut anywhere in the body. Not a defence
// against someone forging a file, which needs none here.
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The body's canonical text, which the checksum covers: compact, keys sorted (json's
// objects are ordered maps), so parsing the file and dumping again gives it back. Bytes
// that are not UTF-8 (a program's message) are replaced rather than thrown on.
std::string canonical(const json& body) { return body.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string checksum_of(const json& body) { return fmt::format("{:016x}", fnv1a(canonical(body))); }

constexpr StopReason kStops[] = {StopReason::none,    StopReason::max_executions, StopReason::time_limit,
                                 StopReason::interrupted, StopReason::failure, StopReason::bad_schedule,
                                 StopReason::nondeterministic};
constexpr FailureKind kKinds[] = {FailureKind::assertion, FailureKind::exception, FailureKind::deadlock,
                                  FailureKind::step_bound, FailureKind::usage, FailureKind::data_race,
                                  FailureKind::use_after_free, FailureKind::double_free, FailureKind::leak};

// A damaged field: one line for the user, caught in parse_checkpoint.
struct Bad {
  std::string what;
};

// An integer field of type T, `name` in `j`: a JSON integer in T's range. nlohmann's
// get<T>() of a float or of an integer beyond T converts with static_cast (undefined for
// 1e20, silently wrong for -1); checkpoint_text writes integers only, so anything else
// is damage.
template <class T>
T integer_value(const json& v, std::string_view name) {
  if (v.is_number_unsigned()) {
    if (const auto u = v.get<std::uint64_t>(); std::in_range<T>(u)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    if (const auto i = v.get<std::int64_t>(); std::in_range<T>(i)) return static_cast<T>(i);
  }
  throw Bad{fmt::format("{} is {}, not an integer from {} to {}", name,
                        v.is_number() ? v.dump() : std::string("a ") + v.type_name(),
                        std::numeric_limits<T>::min(), std::numeric_limits<T>::max())};
}

template <class T>
T integer_field(const json& j, const char* name) {
  return integer_value<T>(j.at(name), name);
}

template <class E, std::size_t N, class NameOf>
E enum_named(const json& j, const E (&all)[N], NameOf name_of, const char* field) {
  const std::string s = j.get<std::string>();
  for (E e : all)
    if (name_of(e) == s) return e;
  throw Bad{fmt::format("unknown {} '{}'", field, s)};
}

json failure_json(const Failure& f) {
  return {{"kind", std::string(failure_kind_name(f.kind))},
          {"message", f.message},
          {"thread", f.thread},
          {"schedule", f.schedule},
          {"execution", f.execution},
          {"event", f.event},
          {"race_first", f.race_first},
          {"race_second", f.race_second}};
}

Failure failure_from(const json& j) {
  Failure f;
  f.kind = enum_named(j.at("kind"), kKinds, failure_kind_name, "failure kind");
  f.message = j.at("message").get<std::string>();
  f.thread = integer_field<ThreadId>(j, "thread");
  f.schedule = j.at("schedule").get<std::string>();
  f.execution = integer_field<std::uint64_t>(j, "execution");
  f.event = integer_field<EventIndex>(j, "event");
  f.race_first = integer_field<EventIndex>(j, "race_first");
  f.race_second = integer_field<EventIndex>(j, "race_second");
  return f;
}

// The verdict's fields a summary reads; cycles, blames and witnesses are left out (the
// --html and --dot reports replay the execution and judge it again).
json checker_json(const CheckerSummary& c) {
  const Verdict& v = c.first_verdict;
  return {{"name", c.name},
          {"flagged", c.flagged},
          {"first_schedule", c.first_schedule},
          {"first_execution", c.first_execution},
          {"undecided", c.undecided},
          {"first_undecided", c.first_undecided},
          {"first_verdict",
           {{"checker", v.checker},
            {"answers_serializability", v.answers_serializability},
            {"answers_blame", v.answers_blame},
            {"serializable", v.serializable},
            {"detected_at", v.detected_at},
            {"undecided", v.undecided},
            {"open_at_end", v.open_at_end},
            {"note", v.note}}}};
}

CheckerSummary checker_from(const json& j) {
  CheckerSummary c;
  c.name = j.at("name").get<std::string>();
  c.flagged = integer_field<std::uint64_t>(j, "flagged");
  c.first_schedule = j.at("first_schedule").get<std::string>();
  c.first_execution = integer_field<std::uint64_t>(j, "first_execution");
  c.undecided = integer_field<std::uint64_t>(j, "undecided");
  c.first_undecided = j.at("first_undecided").get<std::string>();
  const json& v = j.at("first_verdict");
  c.first_verdict.checker = v.at("checker").get<std::string>();
  c.first_verdict.answers_serializability = v.at("answers_serializability").get<bool>();
  c.first_verdict.answers_blame = v.at("answers_blame").get<bool>();
  c.first_verdict.serializable = v.at("serializable").get<bool>();
  c.first_verdict.detected_at = integer_field<EventIndex>(v, "detected_at");
  c.first_verdict.undecided = v.at("undecided").get<std::string>();
  c.first_verdict.open_at_end = v.at("open_at_end").get<bool>();
  c.first_verdict.note = v.at("note").get<std::string>();
  return c;
}

// The tallies. Doubles travel as their bits so that the canonical text (and so the
// checksum) survives a parse and a dump exactly.
json result_json(const ExploreResult& r) {
  json j;
  j["stop"] = std::string(stop_reason_name(r.stop));
  j["error"] = r.error;
  j["executions"] = r.executions;
  j["completed"] = r.completed;
  j["failed"] = r.failed;
  j["deadlocks"] = r.deadlocks;
  j["step_bounded"] = r.step_bounded;
  j["pruned"] = r.pruned;
  j["sleep_blocked"] = r.sleep_blocked;
  j["classes"] = r.classes;
  j["rf_co_classes"] = r.rf_co_classes;
  j["bound_cut"] = r.bound_cut;
  j["bounded"] = r.bounded;
  j["reduction_incomplete"] = r.reduction_incomplete;
  j["reduction_incomplete_by"] = r.reduction_incomplete_by;
  j["unmarked_spins"] = r.unmarked_spins;
  j["unmarked_spin"] = r.unmarked_spin;
  j["unmarked_spin_schedule"] = r.unmarked_spin_schedule;
  j["estimate_bits"] = std::bit_cast<std::uint64_t>(r.estimate);
  j["steps"] = r.steps;
  j["events"] = r.events;
  j["failures"] = json::array();
  for (const Failure& f : r.failures) j["failures"].push_back(failure_json(f));
  j["outcomes"] = json::array();
  for (const auto& [outcome, count] : r.outcomes) {
    json values = json::array();
    for (const auto& [name, value] : outcome) values.push_back({name, value});
    j["outcomes"].push_back({{"values", values}, {"count", count}});
  }
  j["checkers"] = json::array();
  for (const CheckerSummary& c : r.checkers) j["checkers"].push_back(checker_json(c));
  return j;
}

ExploreResult result_from(const json& j) {
  ExploreResult r;
  r.stop = enum_named(j.at("stop"), kStops, stop_reason_name, "stop reason");
  r.error = j.at("error").get<std::string>();
  r.executions = integer_field<std::uint64_t>(j, "executions");
  r.completed = integer_field<std::uint64_t>(j, "completed");
  r.failed = integer_field<std::uint64_t>(j, "failed");
  r.deadlocks = integer_field<std::uint64_t>(j, "deadlocks");
  r.step_bounded = integer_field<std::uint64_t>(j, "step_bounded");
  r.pruned = integer_field<std::uint64_t>(j, "pruned");
  r.sleep_blocked = integer_field<std::uint64_t>(j, "sleep_blocked");
  r.classes = integer_field<std::uint64_t>(j, "classes");
  r.rf_co_classes = integer_field<std::uint64_t>(j, "rf_co_classes");
  r.bound_cut = integer_field<std::uint64_t>(j, "bound_cut");
  r.bounded = j.at("bounded").get<bool>();
  r.reduction_incomplete = j.at("reduction_incomplete").get<bool>();
  r.reduction_incomplete_by = j.at("reduction_incomplete_by").get<std::string>();
  r.unmarked_spins = integer_field<std::uint64_t>(j, "unmarked_spins");
  r.unmarked_spin = j.at("unmarked_spin").get<std::string>();
  r.unmarked_spin_schedule = j.at("unmarked_spin_schedule").get<std::string>();
  r.estimate = std::bit_cast<double>(integer_field<std::uint64_t>(j, "estimate_bits"));
  r.steps = integer_field<std::uint64_t>(j, "steps");
  r.events = integer_field<std::uint64_t>(j, "events");
  for (const json& f : j.at("failures")) r.failures.push_back(failure_from(f));
  for (const json& o : j.at("outcomes")) {
    Outcome outcome;
    for (const json& pair : o.at("values")) {
      if (!pair.is_array() || pair.size() != 2) throw Bad{"an outcome value is not a [name, value] pair"};
      outcome.emplace_back(pair[0].get<std::string>(), integer_value<std::int64_t>(pair[1], "an outcome value"));
    }
    r.outcomes[outcome] = integer_field<std::uint64_t>(o, "count");
  }
  for (const json& c : j.at("checkers")) r.checkers.push_back(checker_from(c));
  if (r.failures.size() > r.executions) throw Bad{"more failures kept than executions"};
  return r;
}

std::vector<std::uint64_t> words_from(const json& j) {
  if (!j.is_array()) throw Bad{"a state is not an array of numbers"};
  std::vector<std::uint64_t> out;
  out.reserve(j.size());
  for (const json& w : j) out.push_back(integer_value<std::uint64_t>(w, "a state word"));
  return out;
}

// How deep a checkpoint's arrays and objects may nest (a real one: 8, in result.outcomes).
// nlohmann's dump, which the checksum needs, recurses once a level: 75000 levels (a
// 150 KB file) overflow an 8 MB stack.
constexpr int kMaxNesting = 64;

// Whether arrays and objects nest more than `cap` deep in the JSON `text`: a linear scan
// of the brackets outside strings, before anything recursive reads it. Exact on valid
// JSON and on the valid prefix the parser reads before its first error.
bool nests_deeper_than(std::string_view text, int cap) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > cap) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string short_error(const std::exception& e) {
  std::string s = e.what();
  // nlohmann's "[json.exception.parse_error.101] parse error at ...": the part after the tag.
  if (s.rfind("[json.exception.", 0) == 0)
    if (std::size_t close = s.find("] "); close != std::string::npos) s = s.substr(close + 2);
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}

}  // namespace

std::string describe(const SearchIdentity& id, const SearchIdentity* other) {
  std::string out = fmt::format("'{}'", id.program);
  for (std::size_t i = 0; i < id.options.size(); ++i) {
    const auto& [flag, value] = id.options[i];
    if (i >= 2 && other) {
      const std::string* theirs = nullptr;
      for (const auto& [f, v] : other->options)
        if (f == flag) theirs = &v;
      if (theirs && *theirs == value) continue;
    }
    if (value.empty()) continue;
    out += value == "set" ? fmt::format(" {}", flag) : fmt::format(" {} {}", flag, value);
  }
  return out;
}

std::string checkpoint_text(const SearchIdentity& id, const SearchState& state) {
  json body;
  json options = json::array();
  for (const auto& [flag, value] : id.options) options.push_back({flag, value});
  body["search"] = {{"program", id.program}, {"options", options}};
  json st;
  st["finished"] = state.finished;
  st["result"] = result_json(state.result);
  st["strategy"] = state.strategy;
  st["estimator"] = state.estimator;
  st["class_keys"] = state.class_keys;
  st["rf_co_keys"] = state.rf_co_keys;
  body["state"] = std::move(st);
  json file;
  file["format"] = kFormat;
  file["version"] = kCheckpointVersion;
  file["checksum"] = checksum_of(body);
  file["body"] = std::move(body);
  return canonical(file) + "\n";
}

std::string parse_checkpoint(std::string_view text, SearchIdentity& id, SearchState& state) {
  if (nests_deeper_than(text, kMaxNesting))
    return fmt::format("damaged checkpoint: arrays and objects nested more than {} deep (atomcheck "
                       "reads at most {}; its checkpoints nest 8)",
                       kMaxNesting, kMaxNesting);
  json file;
  try {
    file = json::parse(text);
  } catch (const json::exception& e) {
    return fmt::format("not a whole checkpoint (truncated or damaged: {})", short_error(e));
  }
  try {
    if (!file.is_object() || !file.contains("format") || file["format"] != kFormat)
      return "not an atomcheck checkpoint (no \"format\": \"atomcheck checkpoint\")";
    if (!file.contains("version") || !file["version"].is_number_integer())
      return "damaged checkpoint: no version";
    if (file["version"] != kCheckpointVersion)
      return fmt::format("checkpoint format version {}, this atomcheck reads version {}",
                         file["version"].dump(), kCheckpointVersion);
    if (!file.contains("checksum") || !file["checksum"].is_string() || !file.contains("body"))
      return "damaged checkpoint: no checksum or no body";
    const std::string want = file["checksum"].get<std::string>();
    if (checksum_of(file["body"]) != want)
      return fmt::format("damaged checkpoint: checksum {} does not match its contents", want);
    const json& body = file["body"];
    const json& search = body.at("search");
    id.program = search.at("program").get<std::string>();
    id.options.clear();
    for (const json& pair : search.at("options")) {
      if (!pair.is_array() || pair.size() != 2) throw Bad{"an option is not a [flag, value] pair"};
      id.options.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
    }
    const json& st = body.at("state");
    state.finished = st.at("finished").get<bool>();
    state.result = result_from(st.at("result"));
    state.strategy = words_from(st.at("strategy"));
    state.estimator = words_from(st.at("estimator"));
    state.class_keys = words_from(st.at("class_keys"));
    state.rf_co_keys = words_from(st.at("rf_co_keys"));
    if (!state.finished && !resumable_stop(state.result.stop))
      return fmt::format("damaged checkpoint: a search stopped by '{}' cannot go on",
                         stop_reason_name(state.result.stop));
  } catch (const Bad& b) {
    return "damaged checkpoint: " + b.what;
  } catch (const json::exception& e) {
    return "damaged checkpoint: " + short_error(e);
  }
  return "";
}

std::string load_checkpoint(const std::string& path, const SearchIdentity& want, SearchState& state) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fmt::format("cannot read the checkpoint: {}", std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return fmt::format("cannot read the checkpoint: {}", std::strerror(errno));
  SearchIdentity id;
  if (std::string e = parse_checkpoint(ss.str(), id, state); !e.empty()) return e;
  if (!(id == want)) return fmt::format("checkpoint of {}, not of {}", describe(id, &want), describe(want, &id));
  return "";
}

namespace {
std::string errno_text(const char* what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

std::string write_checkpoint_file(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_text(("cannot create " + tmp).c_str());
  std::string error;
  std::size_t done = 0;
  while (done < text.size() && error.empty()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) error = errno_text(("cannot write " + tmp).c_str());
    else done += static_cast<std::size_t>(n);
  }
  // On the disk before the rename, or a crash after it could leave FILE empty.
  if (error.empty() && ::fsync(fd) != 0) error = errno_text(("cannot flush " + tmp).c_str());
  if (::close(fd) != 0 && error.empty()) error = errno_text(("cannot close " + tmp).c_str());
  if (error.empty() && ::rename(tmp.c_str(), path.c_str()) != 0)
    error = errno_text(("cannot rename " + tmp + " to " + path).c_str());
  if (!error.empty()) {
    ::unlink(tmp.c_str());
    return error;
  }
  // The rename itself is on the disk once the directory is; a failure here leaves a
  // good file behind either way, so it is not reported.
  const int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return "";
}

std::string probe_checkpoint_path(const std::string& path) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_text(("cannot create " + tmp).c_str());
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

}  // namespace atomcheck::cli
