// detail::Cluster over MPI, and mpi_main (cluster_mpi.hpp). Only the thread that calls
// explore() on each rank uses MPI (MPI_THREAD_FUNNELED: rank 0's unit threads, if any,
// exchange nothing).
#include "mpi/cluster_mpi.hpp"

#include <mpi.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "atomcheck/cli.hpp"
#include "scheduler/explore/cluster.hpp"

namespace atomcheck {

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

std::uint64_t bits_of(double d) {
  std::uint64_t w = 0;
  std::memcpy(&w, &d, sizeof w);
  return w;
}
double double_of(std::uint64_t w) {
  double d = 0;
  std::memcpy(&d, &w, sizeof d);
  return d;
}

class MpiCluster final : public detail::Cluster {
 public:
  MpiCluster() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Nonblocking: a message past MPI's eager limit (a unit, a unit's state) would hold
  // the sender until the receiver, maybe asleep between probes, matched it. The words
  // are copied, MPI keeps the order of two messages to the same rank, and every call
  // here and leave() reap the sends done.
  void send(int to, detail::ClusterTag tag, std::span<const std::uint64_t> words) override {
    reap();
    Pending& p = pending_.emplace_back();
    p.words.assign(words.begin(), words.end());
    MPI_Isend(p.words.data(), static_cast<int>(p.words.size()), MPI_UINT64_T, to, static_cast<int>(tag),
              MPI_COMM_WORLD, &p.request);
    ++messages;
    bytes += words.size() * sizeof(std::uint64_t);
  }
  // Waits for every send to complete (before MPI_Finalize).
  void flush() {
    for (Pending& p : pending_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
    pending_.clear();
  }
  // Waiting probes without sleeping for a while, then sleeps between probes: MPI's own
  // blocking calls spin on a core, which an idle rank would take from the busy ones
  // when ranks share cores (`mpirun --oversubscribe`, or rank 0's unit threads).
  bool receive(int& from, detail::ClusterTag& tag, std::vector<std::uint64_t>& words, bool wait) override {
    reap();
    MPI_Status st;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (!flag && !wait) return false;
    const double waiting_since = flag ? 0 : detail::thread_cpu_seconds();
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (!flag) {
      if (std::chrono::steady_clock::now() >= spin_until) std::this_thread::sleep_for(std::chrono::microseconds(50));
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    }
    if (waiting_since > 0) waited += detail::thread_cpu_seconds() - waiting_since;
    int n = 0;
    MPI_Get_count(&st, MPI_UINT64_T, &n);
    words.resize(static_cast<std::size_t>(n));
    MPI_Recv(words.data(), n, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    from = st.MPI_SOURCE;
    tag = static_cast<detail::ClusterTag>(st.MPI_TAG);
    return true;
  }
  [[noreturn]] void leave() override {
    const std::uint64_t w[] = {bits_of(cpu_seconds()), executions, messages + 1, bytes + 6 * sizeof(std::uint64_t),
                               bits_of(search_waited), bits_of(search_cpu)};
    send(0, detail::ClusterTag::stats, w);
    flush();
    MPI_Finalize();
    std::_Exit(0);
  }

 private:
  struct Pending {
    std::vector<std::uint64_t> words;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  // Drops the sends MPI is done with, oldest first (a deque keeps the others' buffers
  // where MPI reads them).
  void reap() {
    while (!pending_.empty()) {
      int done = 0;
      MPI_Test(&pending_.front().request, &done, MPI_STATUS_IGNORE);
      if (!done) return;
      pending_.pop_front();
    }
  }
  int rank_ = 0, size_ = 1;
  std::deque<Pending> pending_;
};

// Rank 0, after its command: the other ranks leave, and with ATOMCHECK_MPI_STATS=FILE
// each rank's figures go to FILE (one JSON object per line; bench/mpi_scaling.sh).
void end_job(MpiCluster& c) {
  const std::uint64_t none[] = {0};
  for (int k = 1; k < c.size(); ++k) c.send(k, detail::ClusterTag::quit, none);
  std::vector<std::vector<std::uint64_t>> stats(static_cast<std::size_t>(c.size()));
  stats[0] = {bits_of(cpu_seconds()), c.executions, c.messages, c.bytes, bits_of(c.search_waited), bits_of(c.search_cpu),
              c.units, c.taken_over, c.replayed};
  std::vector<std::uint64_t> msg;
  int from = 0;
  detail::ClusterTag tag{};
  for (int got = 1; got < c.size();) {
    c.receive(from, tag, msg, true);
    if (tag != detail::ClusterTag::stats || msg.size() != 6) continue;
    stats[static_cast<std::size_t>(from)] = msg;
    ++got;
  }
  const char* file = std::getenv("ATOMCHECK_MPI_STATS");
  if (!file || !*file) return;
  std::FILE* out = std::fopen(file, "w");
  if (!out) {
    fmt::print(stderr, "atomcheck-mpi: ATOMCHECK_MPI_STATS={}: {}\n", file, std::strerror(errno));
    return;
  }
  for (std::size_t k = 0; k < stats.size(); ++k)
    fmt::print(out,
               "{{\"rank\": {}, \"cpu_seconds\": {:.6f}, \"executions\": {}, \"messages\": {}, \"bytes\": {}, "
               "\"search_cpu_seconds\": {:.6f}, \"wait_cpu_seconds\": {:.6f}{}}}\n",
               k, double_of(stats[k][0]), stats[k][1], stats[k][2], stats[k][3], double_of(stats[k][5]),
               double_of(stats[k][4]),
               k ? "" : fmt::format(", \"units\": {}, \"taken_over\": {}, \"replayed\": {}", stats[k][6], stats[k][7], stats[k][8]));
  std::fclose(out);
}

// The commands whose main search other ranks share; for any other, they leave at once.
bool distributes(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string_view cmd = argv[1];
  return cmd == "run" || cmd == "validate";
}

}  // namespace

int mpi_main(int argc, char** argv) {
  // Open MPI yields the core inside every probe when ranks outnumber cores; the ranks
  // here sleep in their own waits instead (MpiCluster::receive), and a yield per probe
  // cost rank 0 several microseconds an execution. A user's setting wins.
  setenv("OMPI_MCA_mpi_yield_when_idle", "0", 0);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MpiCluster c;
  // One rank per core is how MPI jobs are laid out: a rank explores on one thread unless
  // --jobs says otherwise.
  std::vector<char*> args(argv, argv + argc);
  bool jobs_given = false;
  for (int i = 1; i < argc; ++i)
    jobs_given = jobs_given || std::string_view(argv[i]) == "--jobs" || std::string_view(argv[i]).starts_with("--jobs=");
  static char jobs_flag[] = "--jobs", one[] = "1";
  if (distributes(argc, argv) && !jobs_given) {
    args.insert(args.begin() + 2, {jobs_flag, one});
  }
  args.push_back(nullptr);
  const int n = static_cast<int>(args.size()) - 1;
  if (c.rank() != 0) {
    if (!distributes(argc, argv)) {
      MPI_Finalize();
      return 0;
    }
    // Rank 0 alone speaks: the others run the command only to reach its main search.
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 1);
      dup2(devnull, 2);
      close(devnull);
    }
    detail::set_cluster(&c);
    cli_main(n, args.data());
    // The command ended before its main search (bad input, --help): wait for rank 0's word.
    std::vector<std::uint64_t> msg;
    int from = 0;
    detail::ClusterTag tag{};
    do c.receive(from, tag, msg, true);
    while (tag != detail::ClusterTag::quit);
    c.leave();
  }
  detail::set_cluster(&c);
  const int code = cli_main(n, args.data());
  if (distributes(argc, argv)) end_job(c);
  c.flush();
  MPI_Finalize();
  return code;
}

}  // namespace atomcheck
