// Target resolution shared by the exploring commands: names go to the program registry,
// `.json` files to the spec loader, `.litmus` files to the herd7 parser.
#include "cli/target.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <vector>
#include <system_error>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "specs/litmus.hpp"
#include "specs/spec.hpp"

namespace atomcheck::cli {

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Single quotes survive every shell unchanged except a quote itself; plain paths stay
// unquoted so the command reads naturally.
std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-=,:@") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::string Target::replay_command(const std::string& schedule, MemoryModelKind memory) const {
  std::string cmd = fmt::format("{} {} {} --replay '{}'", tool_name(), kind == "litmus" ? "validate" : "run",
                                shell_quote(name), schedule);
  if (memory != MemoryModelKind::sc) cmd += fmt::format(" --memory {}", memory_model_name(memory));
  else if (kind == "spec" || kind == "litmus") cmd += " --memory sc";
  return cmd;
}

bool resolve_target(const std::string& name, Target& out, std::string& error) {
  out = Target{};
  out.name = name;
  if (ends_with(name, ".json")) {
    try {
      auto s = std::make_shared<spec::Spec>(spec::load_spec(name));
      out.kind = "spec";
      out.description = s->description;
      out.max_steps = s->max_steps;
      out.program = spec::spec_program(*s);
      out.spec = std::move(s);
    } catch (const spec::SpecError& e) {
      error = e.what();
      return false;
    }
    return true;
  }
  if (ends_with(name, ".litmus")) {
    try {
      auto t = std::make_shared<litmus::Test>(litmus::load_litmus(name));
      out.kind = "litmus";
      out.description = fmt::format("herd7 litmus test {}", t->name);
      out.program = litmus::litmus_program(*t);
      out.litmus = std::move(t);
    } catch (const litmus::LitmusError& e) {
      error = e.what();
      return false;
    }
    return true;
  }
  const ProgramInfo* p = find_program(name);
  if (!p) {
    error = unknown_program_message(name);
    return false;
  }
  out.kind = "program";
  out.description = p->description;
  out.program = p->body;
  return true;
}

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

// The registered program a mistyped or shortened name most likely meant: one the name
// begins or is contained in ("treiber" -> "treiber-stack"), else one within a third of
// its length in edits. Empty when none is close.
std::string closest_program(const std::string& name) {
  if (name.empty()) return {};
  std::string best;
  std::size_t best_cost = name.size() / 3 + 1;
  for (const ProgramInfo* p : registered_programs()) {
    std::size_t cost = p->name.starts_with(name)                 ? 0
                       : p->name.find(name) != std::string::npos ? 1
                                                                 : edit_distance(name, p->name) + 1;
    if (cost < best_cost || (cost == best_cost && !best.empty() && p->name.size() < best.size())) {
      best = p->name;
      best_cost = cost;
    }
  }
  return best;
}

std::string unknown_program_message(const std::string& name) {
  std::error_code ec;
  if (std::filesystem::is_directory(name, ec))
    return fmt::format("{}: is a directory, not a program, .litmus or .json file", name);
  if (std::filesystem::exists(name, ec))
    return fmt::format("{}: a file, but neither .litmus nor .json, and no program has that name "
                       "(see `atomcheck list`)", name);
  std::string suggestion = closest_program(name);
  if (!suggestion.empty())
    return fmt::format("{}: unknown program; did you mean {}? (see `{} list`)", name, suggestion, tool_name());
  return fmt::format("{}: unknown program (see `{} list`)", name, tool_name());
}

}  // namespace atomcheck::cli
