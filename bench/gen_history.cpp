// Writes a recorded history in atomcheck's JSONL (docs/check-history.md) to standard
// output, for bench/check_history_vs_porcupine.sh: clients calling operations on one
// simulated atomic object, each taking effect at a random moment between its call and its
// return, so the history is linearizable; --bad then gives one read-like operation half-way
// through a result nothing could have produced. Written values are distinct.
//
// Families: register (read, write: a CAS register's history), kv (get, put, append over
// --keys keys; values are short strings), queue (enqueue, dequeue), stack (push, pop).
// --pending=P: P per mille of the operations never return (the client is then replaced by
// a fresh one, as Jepsen does), half of them having taken effect.
//
// gen_history --family=register|kv|queue|stack [--ops=100000] [--clients=10]
//             [--keys=100] [--pending=0] [--bad] [--seed=1]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "xorshift.hpp"

namespace {

struct Params {
  std::string family = "register";
  std::uint64_t ops = 100000, clients = 10, keys = 100, pending = 0, seed = 1;
  bool bad = false;
};

bool flag(const char* arg, const char* name, std::string& out) {
  const std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  out = arg + n + 1;
  return true;
}

struct Open {
  std::uint64_t client = 0;
  bool busy = false, applied = false;
  std::string f, key, arg, result;
};

}  // namespace

int main(int argc, char** argv) {
  Params p;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (flag(argv[i], "--family", v)) {
      p.family = v;
    } else if (flag(argv[i], "--ops", v)) {
      p.ops = std::strtoull(v.c_str(), nullptr, 10);
    } else if (flag(argv[i], "--clients", v)) {
      p.clients = std::strtoull(v.c_str(), nullptr, 10);
    } else if (flag(argv[i], "--keys", v)) {
      p.keys = std::strtoull(v.c_str(), nullptr, 10);
    } else if (flag(argv[i], "--pending", v)) {
      p.pending = std::strtoull(v.c_str(), nullptr, 10);
    } else if (flag(argv[i], "--seed", v)) {
      p.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (std::strcmp(argv[i], "--bad") == 0) {
      p.bad = true;
    } else {
      std::fprintf(stderr, "gen_history: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (p.family != "register" && p.family != "kv" && p.family != "queue" && p.family != "stack") {
    std::fprintf(stderr, "gen_history: --family is register, kv, queue or stack\n");
    return 2;
  }
  XorShiftRng rng{p.seed * 0x9E3779B97F4A7C15ull + 1};
  auto pick = [&](std::uint64_t n) { return rng.next() % n; };
  std::string reg = "null";
  std::vector<std::string> kv(p.keys);
  std::deque<std::string> items;
  std::vector<Open> open(p.clients);
  std::uint64_t next_client = 0, started = 0, value = 0, busy = 0;
  for (Open& o : open) o.client = next_client++;
  const std::uint64_t bad_at = p.ops / 2;
  bool bad_done = !p.bad;
  std::string line;
  while (started < p.ops || busy > 0) {
    Open& o = open[pick(open.size())];
    if (!o.busy) {
      if (started == p.ops) continue;
      ++started;
      ++busy;
      o.busy = true;
      o.applied = false;
      o.arg.clear();
      o.key.clear();
      const std::uint64_t r = pick(10);
      if (p.family == "register") {
        o.f = r < 5 ? "read" : "write";
        if (o.f == "write") o.arg = std::to_string(++value);
      } else if (p.family == "kv") {
        o.f = r < 4 ? "get" : r < 8 ? "put" : "append";
        o.key = std::to_string(pick(p.keys));
        if (o.f != "get") o.arg = "\"v" + std::to_string(++value) + " \"";
      } else {
        const bool in = r < 5;
        o.f = p.family == "queue" ? (in ? "enqueue" : "dequeue") : (in ? "push" : "pop");
        if (in) o.arg = std::to_string(++value);
      }
      line = "{\"client\":" + std::to_string(o.client) + ",\"type\":\"invoke\",\"f\":\"" + o.f + "\"";
      if (!o.key.empty()) line += ",\"key\":\"" + o.key + "\"";
      if (!o.arg.empty()) line += ",\"args\":[" + o.arg + "]";
      std::printf("%s}\n", line.c_str());
      continue;
    }
    if (!o.applied) {
      o.applied = true;
      const bool lost = p.pending && pick(1000) < p.pending;
      if (lost && pick(2) == 0) {  // never returns, never took effect
        --busy;
        o = Open{};
        o.client = next_client++;
        continue;
      }
      // Takes effect now.
      o.result = "null";
      if (p.family == "register") {
        if (o.f == "write") {
          reg = o.arg;
        } else {
          o.result = reg;
        }
      } else if (p.family == "kv") {
        std::string& v = kv[std::stoull(o.key)];
        if (o.f == "put") v = o.arg.substr(1, o.arg.size() - 2);
        if (o.f == "append") v += o.arg.substr(1, o.arg.size() - 2);
        if (o.f == "get") o.result = "\"" + v + "\"";
      } else if (!o.arg.empty()) {
        items.push_back(o.arg);
      } else if (!items.empty()) {
        if (p.family == "queue") {
          o.result = items.front();
          items.pop_front();
        } else {
          o.result = items.back();
          items.pop_back();
        }
      }
      if (lost) {  // took effect, never returns
        --busy;
        o = Open{};
        o.client = next_client++;
      }
      continue;
    }
    if (!bad_done && started >= bad_at && o.arg.empty()) {
      o.result = p.family == "kv" ? "\"never written\"" : "-1";
      bad_done = true;
    }
    std::printf("{\"client\":%llu,\"type\":\"ok\",\"result\":%s}\n", static_cast<unsigned long long>(o.client),
                o.result.c_str());
    o.busy = false;
    --busy;
  }
  return 0;
}
