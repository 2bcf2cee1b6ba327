// Schedules as short printable strings, action names and the dependence relation that
// strategies (DPOR later) use.
#include <cctype>
#include <string>

#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"

namespace atomcheck {

std::string_view action_name(Action a) {
  switch (a) {
    case Action::read: return "read";
    case Action::write: return "write";
    case Action::rmw: return "rmw";
    case Action::fence: return "fence";
    case Action::acquire: return "acquire";
    case Action::try_acquire: return "try_acquire";
    case Action::release: return "release";
    case Action::flush: return "flush";
  }
  return "?";
}

namespace {
bool is_var_action(Action a) {
  return a == Action::read || a == Action::write || a == Action::rmw || a == Action::flush;
}
bool writes(Action a) { return a == Action::write || a == Action::rmw || a == Action::flush; }
}  // namespace

bool dependent(const Transition& a, const Transition& b) {
  if (a.thread == b.thread) return true;
  if (is_var_action(a.action) && is_var_action(b.action))
    return a.target == b.target && (writes(a.action) || writes(b.action));
  if (is_lock_action(a.action) && is_lock_action(b.action)) return a.target == b.target;
  // A fence waits for its own buffer only: it commutes with other threads' steps.
  return false;
}

std::size_t write_schedule(std::span<const Transition> choices, char* out, std::size_t cap) {
  // No allocation and no library formatting: the crash handler calls this.
  std::size_t n = 0;
  auto put = [&](char c) {
    if (n < cap) out[n] = c;
    ++n;
  };
  auto digits = [](std::uint64_t v) {
    std::size_t d = 1;
    while (v >= 10) v /= 10, ++d;
    return d;
  };
  auto put_number = [&](std::uint64_t v) {
    char d[20];
    std::size_t k = 0;
    do d[k++] = static_cast<char>('0' + v % 10); while ((v /= 10) != 0);
    while (k > 0) put(d[--k]);
  };
  // kind: 0 a thread, 1 a flush ('!'), 2 a memory model's choice ('=', numbered by seq).
  auto token_size = [&](ThreadId t, int kind) { return (kind ? 1 : 0) + (t < 36 ? 1 : digits(t) + 2); };
  auto put_token = [&](ThreadId t, int kind) {
    if (kind == 1) put('!');
    if (kind == 2) put('=');
    if (t < 10) {
      put(static_cast<char>('0' + t));
    } else if (t < 36) {
      put(static_cast<char>('a' + (t - 10)));
    } else {
      put('{');
      put_number(t);
      put('}');
    }
  };
  std::size_t i = 0;
  while (i < choices.size()) {
    auto kind_of = [](const Transition& t) { return t.choice ? 2 : t.action == Action::flush ? 1 : 0; };
    auto id_of = [](const Transition& t) { return t.choice ? t.seq : t.thread; };
    const Transition& c = choices[i];
    const int kind = kind_of(c);
    const ThreadId id = id_of(c);
    std::size_t j = i + 1;
    while (j < choices.size() && id_of(choices[j]) == id && kind_of(choices[j]) == kind) ++j;
    const std::size_t run = j - i, token = token_size(id, kind);
    if (run * token > token + digits(run) + 2) {
      put_token(id, kind);
      put('[');
      put_number(run);
      put(']');
    } else {
      for (std::size_t k = 0; k < run; ++k) put_token(id, kind);
    }
    i = j;
  }
  return n;
}

std::string format_schedule(std::span<const Transition> choices) {
  std::string out(write_schedule(choices, nullptr, 0), '\0');
  write_schedule(choices, out.data(), out.size());
  return out;
}

bool parse_schedule(std::string_view text, std::vector<ScheduleChoice>& out, std::string& error) {
  out.clear();
  std::size_t i = 0;
  auto number = [&](char close, std::uint64_t& value) {
    std::size_t start = i;
    value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (value > 100000000) return false;
      ++i;
    }
    if (i == start || i >= text.size() || text[i] != close) return false;
    ++i;
    return true;
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      ++i;
      continue;
    }
    std::size_t at = i;
    ScheduleChoice choice;
    if (c == '!' || c == '=') {
      (c == '!' ? choice.flush : choice.option) = true;
      ++i;
      if (i >= text.size()) {
        error = fmt::format("schedule ends after '{}' at character {}", c, at + 1);
        return false;
      }
      c = text[i];
    }
    if (c >= '0' && c <= '9') {
      choice.thread = static_cast<ThreadId>(c - '0');
      ++i;
    } else if (c >= 'a' && c <= 'z') {
      choice.thread = static_cast<ThreadId>(c - 'a' + 10);
      ++i;
    } else if (c == '{') {
      ++i;
      std::uint64_t v;
      if (!number('}', v)) {
        error = fmt::format("bad thread number in schedule at character {}", at + 1);
        return false;
      }
      choice.thread = static_cast<ThreadId>(v);
    } else {
      error = fmt::format("unexpected '{}' in schedule at character {}", c, i + 1);
      return false;
    }
    std::uint64_t repeat = 1;
    if (i < text.size() && text[i] == '[') {
      ++i;
      if (!number(']', repeat) || repeat == 0) {
        error = fmt::format("bad repeat count in schedule at character {}", at + 1);
        return false;
      }
    }
    out.insert(out.end(), repeat, choice);
  }
  return true;
}

}  // namespace atomcheck
