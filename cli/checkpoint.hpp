// Checkpoint files of `atomcheck run` (--checkpoint, --resume; docs/checkpoint.md): a
// search's state (SearchState) beside the program and the options that decide the
// search, so a long search survives Ctrl-C, a batch scheduler's SIGTERM or a crash. Kept
// apart from cmd_run.cpp so the format, its checks and the atomic write can be tested
// directly (tests/test_checkpoint.cpp), not only through the command.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../scheduler/explore/explore.hpp"

namespace atomcheck::cli {

// The format's version; a file of another version is refused, not guessed at.
inline constexpr int kCheckpointVersion = 1;

// What a checkpoint must match to be resumed: the program and every option that changes
// which executions run or how they are tallied, as (flag, value) in a fixed order. A
// value "" is an option not given (never printed); "set" is a flag without a value.
struct SearchIdentity {
  std::string program;
  std::vector<std::pair<std::string, std::string>> options;
  bool operator==(const SearchIdentity&) const = default;
};

// "'lost-update' --memory sc --strategy dfs": the program, the first two options, and the
// other options of `id` that `other` gives differently (all of them when other is null).
std::string describe(const SearchIdentity& id, const SearchIdentity* other = nullptr);

// The file's text: one JSON object with the format's name, its version, a checksum and
// the body (the identity and the state).
std::string checkpoint_text(const SearchIdentity& id, const SearchState& state);

// Reads a checkpoint's text into `id` and `state`: "" when it is a whole, undamaged
// checkpoint, else what is wrong in a few words (truncated, not JSON, checksum, ...).
std::string parse_checkpoint(std::string_view text, SearchIdentity& id, SearchState& state);

// Reads FILE for the search `want`: "" or a one-line reason (the caller names the file).
std::string load_checkpoint(const std::string& path, const SearchIdentity& want, SearchState& state);

// Replaces FILE with `text` atomically: FILE.tmp is written, flushed to the disk and
// renamed over FILE, so FILE is the old checkpoint or the new one, never a part. "" or
// why it failed (FILE.tmp is removed then, FILE untouched).
std::string write_checkpoint_file(const std::string& path, std::string_view text);

// Can FILE.tmp be created beside FILE? Checked before a search starts, so a checkpoint
// that cannot be written is said at once rather than after hours. "" or why not.
std::string probe_checkpoint_path(const std::string& path);

}  // namespace atomcheck::cli
