// Writes a random TSO trace (JSON lines, no commits: a trace in the paper's sense) of
// any length to standard output, for bench/trace_tso_scaling.sh. Standalone and
// deterministic (the same flags give the same bytes on every machine).
//
// Each step a random thread does one operation on one of `vars` variables: a read or a
// write (half each), a fence (--fence per mille) or an rmw (--rmw per mille); with
// --block per mille it opens a begin/end block of 2-4 operations instead, so
// transactions of several events occur; otherwise every event is its own transaction.
//
// --unfenced: no fence, no rmw: reads and writes only, so buffers are never drained;
// without --block every event is its own transaction (such a trace is always
// TSO-serializable: docs/trace-tso-fpt.md, "Unary traces"), with --block some
// transactions have 2-4 operations. --sb=K then inserts K store-buffering pairs
// at evenly spaced points: T0 runs begin, write s0, read s1, end and T1 begin, write s1,
// read s0, end, interleaved so both writes are issued before both reads (variables s0
// and s1 are used by nothing else, so neither read is served by its own buffer): with
// both commits placed after both reads the two blocks form a cycle, so the trace is
// not TSO-serializable. Each pair counts 8 of the N events.
//
// gen_tso_trace --events=N [--threads=4] [--vars=8] [--fence=100] [--rmw=20]
//               [--block=0] [--unfenced] [--sb=0] [--seed=1]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "xorshift.hpp"

namespace {

using Rng = XorShiftRng;

bool flag(const char* arg, const char* name, std::uint64_t& out) {
  std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  out = std::strtoull(arg + n + 1, nullptr, 10);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t events = 1000, threads = 4, vars = 8, fence = 100, rmw = 20, block = 0, seed = 1, sb = 0;
  bool unfenced = false;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--unfenced") == 0) {
      unfenced = true;
      continue;
    }
    if (!(flag(argv[k], "--events", events) || flag(argv[k], "--threads", threads) || flag(argv[k], "--vars", vars) ||
          flag(argv[k], "--fence", fence) || flag(argv[k], "--rmw", rmw) || flag(argv[k], "--block", block) ||
          flag(argv[k], "--seed", seed) || flag(argv[k], "--sb", sb))) {
      std::fprintf(stderr, "gen_tso_trace: unknown argument %s\n", argv[k]);
      return 2;
    }
  }
  if (threads == 0 || vars == 0 || (sb > 0 && threads < 2) || sb * 8 > events) return 2;
  if (unfenced) fence = rmw = 0;
  Rng rng{seed * 0x9E3779B97F4A7C15ULL + 1};
  std::vector<std::uint32_t> left(threads, 0);  // operations left in the thread's open block
  std::string line;
  std::uint64_t pairs_done = 0;
  auto put = [&](const char* body) {
    line = body;
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
  };
  for (std::uint64_t i = 0; i < events;) {
    // The next store-buffering pair, at evenly spaced points of the unary stream.
    if (pairs_done < sb && i >= (pairs_done + 1) * (events - 8 * sb) / (sb + 1) + 8 * pairs_done) {
      for (const char* ev : {R"({"thread":"T0","op":"begin"})", R"({"thread":"T0","op":"write","var":"s0"})",
                             R"({"thread":"T1","op":"begin"})", R"({"thread":"T1","op":"write","var":"s1"})",
                             R"({"thread":"T0","op":"read","var":"s1"})", R"({"thread":"T1","op":"read","var":"s0"})",
                             R"({"thread":"T0","op":"end"})", R"({"thread":"T1","op":"end"})"})
        put(ev);
      i += 8;
      ++pairs_done;
      continue;
    }
    auto t = static_cast<std::uint32_t>(rng.below(static_cast<std::uint32_t>(threads)));
    char th[16];
    std::snprintf(th, sizeof th, "T%u", t);
    auto emit = [&](const std::string& body) {
      line = "{\"thread\":\"" + std::string(th) + "\"," + body + "}\n";
      std::fwrite(line.data(), 1, line.size(), stdout);
      ++i;
    };
    if (left[t] == 0 && block > 0 && rng.below(1000) < block && i + 2 < events) {
      left[t] = 2 + rng.below(3);
      emit("\"op\":\"begin\"");
      continue;
    }
    std::string x = "\"var\":\"x" + std::to_string(rng.below(static_cast<std::uint32_t>(vars))) + "\"";
    std::uint32_t r = rng.below(1000);
    if (r < fence) emit("\"op\":\"fence\"");
    else if (r < fence + rmw) emit("\"op\":\"rmw\"," + x);
    else if (rng.below(2) == 0) emit("\"op\":\"read\"," + x);
    else emit("\"op\":\"write\"," + x);
    if (left[t] > 0 && --left[t] == 0) emit("\"op\":\"end\"");
  }
  // Blocks still open stay open: check-trace judges them as ended at the end.
  return 0;
}
