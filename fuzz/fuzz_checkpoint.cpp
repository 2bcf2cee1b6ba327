// libFuzzer target for the checkpoint parser (cli/checkpoint.cpp: parse_checkpoint, the
// part of load_checkpoint that reads the text; `atomcheck run --resume FILE`).
//
// Every input is parsed twice: as it is, and, when it is a JSON object with a "body",
// once more with its checksum recomputed (FNV-1a over the body's canonical text, as
// checkpoint.cpp computes it), so mutations inside the body get past the checksum and
// reach the field checks. Each parse must return "" or a one-line reason; a checkpoint
// that parses must survive checkpoint_text and parse again to the same text. Anything
// else (a crash, a sanitizer report, an exception, a multi-line reason, a re-sealed
// file refused for its checksum, a round trip that fails) aborts: a finding.
//
// Not covered: what the strategies do with the state words (Strategy::restore checks
// them index by index when a search resumes), which lives in the scheduler.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/checkpoint.hpp"

namespace {

using nlohmann::json;
using atomcheck::SearchState;
using atomcheck::cli::SearchIdentity;

[[noreturn]] void finding(const char* what, std::string_view detail) {
  std::fprintf(stderr, "checkpoint fuzz target: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// checkpoint.cpp's checksum (fnv1a and canonical there).
std::string checksum_of(const json& body) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : body.dump(-1, ' ', false, json::error_handler_t::replace)) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

// How deeply arrays and objects nest in `j`, counted without recursion and up to `cap`.
// nlohmann's dump recurses; the fuzz target's own dump must not be what overflows.
int depth_up_to(const json& j, int cap) {
  std::vector<std::pair<const json*, int>> todo{{&j, 1}};
  int deepest = 0;
  while (!todo.empty()) {
    auto [v, d] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, d);
    if (deepest >= cap) return deepest;
    for (const json& child : *v) todo.push_back({&child, d + 1});
  }
  return deepest;
}

// Parses `text`; on success checks the round trip through checkpoint_text.
bool parse_and_round_trip(std::string_view text) {
  SearchIdentity id;
  SearchState state;
  std::string reason = atomcheck::cli::parse_checkpoint(text, id, state);
  if (reason.find('\n') != std::string::npos) finding("a reason of more than one line", reason);
  if (!reason.empty()) {
    if (reason.find("checksum") != std::string::npos && reason.find("does not match") != std::string::npos)
      return false;
    return true;
  }
  const std::string again = atomcheck::cli::checkpoint_text(id, state);
  SearchIdentity id2;
  SearchState state2;
  std::string reason2 = atomcheck::cli::parse_checkpoint(again, id2, state2);
  if (!reason2.empty()) finding("checkpoint_text of a parsed checkpoint does not parse", reason2);
  if (!(id2 == id) || atomcheck::cli::checkpoint_text(id2, state2) != again)
    finding("checkpoint_text of a parsed checkpoint parses to another checkpoint", again);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  parse_and_round_trip(text);

  json file = json::parse(text, nullptr, /*allow_exceptions=*/false);
  // A real checkpoint nests 6 levels; deeper bodies are left to the first parse.
  if (!file.is_object() || !file.contains("body") || depth_up_to(file, 64) >= 64) return 0;
  file["checksum"] = checksum_of(file["body"]);
  const std::string sealed = file.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!parse_and_round_trip(sealed))
    finding("a file whose checksum the fuzz target recomputed is refused for its checksum "
            "(does checksum_of still match checkpoint.cpp's?)",
            sealed);
  return 0;
}
