// Writes a random x86-TSO trace (checkers/tso_random: random programs run under a
// simulated store-buffer memory, commits dropped) as JSON lines (STD cannot carry
// fences or RMWs) to standard output, for bench/trace_tso_z3_scaling.sh: the trace
// TSO-serializability deciders against trace length.
//
// gen_tso_program_trace --events=N [--threads=4] [--vars=8] [--fence-permille=100]
//               [--rmw-permille=30] [--block-permille=0] [--seed=1]
// --events is approximate: ops per thread = events / threads; a write counts once.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "checkers/tso_random.hpp"
#include "trace/trace_io.hpp"

int main(int argc, char** argv) {
  atomcheck::tso::RandomTsoParams p;
  p.threads = 4;
  p.vars = 8;
  p.block_permille = 0;
  p.fence_permille = 100;
  p.rmw_permille = 30;
  std::uint64_t events = 1000, seed = 1;
  for (int i = 1; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    if (eq == nullptr) {
      std::fprintf(stderr, "gen_tso_program_trace: expected --name=value, got %s\n", argv[i]);
      return 2;
    }
    std::string name(argv[i], static_cast<std::size_t>(eq - argv[i]));
    std::uint64_t v = std::strtoull(eq + 1, nullptr, 10);
    if (name == "--events") events = v;
    else if (name == "--threads") p.threads = static_cast<std::uint32_t>(v);
    else if (name == "--vars") p.vars = static_cast<std::uint32_t>(v);
    else if (name == "--fence-permille") p.fence_permille = static_cast<std::uint32_t>(v);
    else if (name == "--rmw-permille") p.rmw_permille = static_cast<std::uint32_t>(v);
    else if (name == "--block-permille") p.block_permille = static_cast<std::uint32_t>(v);
    else if (name == "--seed") seed = v;
    else {
      std::fprintf(stderr, "gen_tso_program_trace: unknown option %s\n", name.c_str());
      return 2;
    }
  }
  p.ops_per_thread = static_cast<std::uint32_t>(events / (p.threads == 0 ? 1 : p.threads));
  atomcheck::Trace t = atomcheck::drop_commits(atomcheck::tso::random_tso_execution(p, seed));
  atomcheck::write_jsonl(stdout, t);
  return 0;
}
