// The naive ⊚TSO of tso_naive.hpp: quadratic pairs, each fact found by a fresh scan.
#include "tests/support/tso_naive.hpp"

#include <map>
#include <vector>

namespace atomcheck::naive {

namespace {

// The paper's kinds, plus our fork/join and lock hand-over (begin/end are not events).
enum class Kind { rd, wr, com, fn, acq, rel, fork, join };

struct Ev {
  Kind kind;
  std::uint32_t thread;
  std::uint32_t object;   // variable, lock or child thread
  std::size_t issue = 0;  // com: position of its write-issue in the expanded sequence
  TxnName txn;
};

// The transaction of every input event: outermost begin/end blocks, else one event each;
// a commit joins the transaction of its issue.
std::vector<TxnName> transactions(std::span<const Event> eta) {
  std::vector<TxnName> out(eta.size());
  std::map<std::uint32_t, int> depth;
  std::map<std::uint32_t, std::uint64_t> opened;
  for (std::uint64_t k = 0; k < eta.size(); ++k) {
    const Event& e = eta[k];
    if (e.op == Op::commit) {
      out[k] = out[e.issue];
      continue;
    }
    int& d = depth[e.thread];
    if (e.op == Op::begin && d++ == 0) opened[e.thread] = k;
    out[k] = d > 0 ? TxnName{e.thread, opened[e.thread]} : TxnName{e.thread, k};
    if (e.op == Op::end && d > 0) --d;
  }
  return out;
}

std::vector<Ev> expand(std::span<const Event> eta) {
  std::vector<TxnName> txn = transactions(eta);
  std::vector<Ev> x;
  std::map<std::uint64_t, std::size_t> pos_of_write;
  for (std::uint64_t k = 0; k < eta.size(); ++k) {
    const Event& e = eta[k];
    auto add = [&](Kind kind, std::size_t issue = 0) {
      x.push_back(Ev{kind, e.thread, e.target, issue, txn[k]});
    };
    switch (e.op) {
      case Op::read: add(Kind::rd); break;
      case Op::write:
        pos_of_write[k] = x.size();
        add(Kind::wr);
        break;
      case Op::commit: add(Kind::com, pos_of_write.at(e.issue)); break;
      case Op::fence: add(Kind::fn); break;
      case Op::rmw:  // a locked instruction, a full barrier on x86: fence, read, write,
                     // its commit at once, fence (so a later read is never buffered)
        add(Kind::fn);
        add(Kind::rd);
        add(Kind::wr);
        add(Kind::com, x.size() - 1);
        add(Kind::fn);
        break;
      case Op::acquire:
        add(Kind::fn);
        add(Kind::acq);
        break;
      case Op::release:
        add(Kind::fn);
        add(Kind::rel);
        break;
      case Op::fork:  // starting a thread drains the creator's buffer first
        add(Kind::fn);
        add(Kind::fork);
        break;
      case Op::join: add(Kind::join); break;
      case Op::begin:
      case Op::end: break;
    }
  }
  return x;
}

// Preceded in its thread by a write of its variable with no fence in between: a read
// that *may* be served by the buffer (the paper's "buffered read").
bool buffered(const std::vector<Ev>& x, std::size_t r) {
  for (std::size_t k = r; k-- > 0;) {
    if (x[k].thread != x[r].thread) continue;
    if (x[k].kind == Kind::fn) return false;
    if (x[k].kind == Kind::wr && x[k].object == x[r].object) return true;
  }
  return false;
}

// The most recent write-issue of the read's thread and variable, when the read lies
// between it and its commit (the read is served by the buffer); else none.
bool served_window(const std::vector<Ev>& x, std::size_t r, std::size_t& w, std::size_t& c) {
  for (std::size_t k = r; k-- > 0;) {
    if (x[k].thread == x[r].thread && x[k].kind == Kind::wr && x[k].object == x[r].object) {
      w = k;
      c = x.size();  // never committed: pending to the end
      for (std::size_t m = k + 1; m < x.size(); ++m)
        if (x[m].kind == Kind::com && x[m].issue == k) c = m;
      return c > r;
    }
  }
  return false;
}

bool is_access(Kind k) { return k == Kind::rd || k == Kind::wr || k == Kind::com; }

// x[i] before x[j]: do they conflict under ⊚TSO?
bool conflict(const std::vector<Ev>& x, std::size_t i, std::size_t j) {
  const Ev& a = x[i];
  const Ev& b = x[j];
  if (a.thread == b.thread) {
    // (2) events of one thread conflict, except: (ii) a commit and the thread's other
    // reads, writes and fences, but for its own issue (and FIFO among commits, and every
    // commit before the next fence); (iii) a write and a later read of another variable,
    // and a buffered read and a later read of another variable.
    if (a.kind == Kind::com && b.kind == Kind::com) return true;
    if (b.kind == Kind::com) return b.issue == i;
    if (a.kind == Kind::com) return b.kind == Kind::fn;
    if (a.kind == Kind::wr && b.kind == Kind::rd && a.object != b.object) return false;
    if (a.kind == Kind::rd && b.kind == Kind::rd && a.object != b.object && buffered(x, i)) return false;
    return true;
  }
  if (a.kind == Kind::fork && a.object == b.thread) return true;
  if (b.kind == Kind::join && b.object == a.thread) return true;
  if (a.kind == Kind::rel && b.kind == Kind::acq && a.object == b.object) return true;
  if (!is_access(a.kind) || !is_access(b.kind) || a.object != b.object) return false;
  // (1) same variable, one a write-commit and the other a read or a write-commit; a
  // write-issue only fills its own buffer.
  if (a.kind != Kind::com && b.kind != Kind::com) return false;
  if (a.kind == Kind::wr || b.kind == Kind::wr) return false;
  if (a.kind == Kind::com && b.kind == Kind::com) return true;
  std::size_t r = a.kind == Kind::rd ? i : j;
  std::size_t m = r == i ? j : i;
  // rd_t1(x) || wr-com_t2(x): the read is served by its buffer and the other commit
  // falls between that buffered write's issue and its commit.
  std::size_t w = 0, c = 0;
  if (served_window(x, r, w, c) && w < m && m < c) return false;
  return true;
}

}  // namespace

std::set<std::pair<TxnName, TxnName>> tso_conflict_graph(std::span<const Event> eta) {
  std::vector<Ev> x = expand(eta);
  std::set<std::pair<TxnName, TxnName>> edges;
  for (std::size_t j = 0; j < x.size(); ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (x[i].txn != x[j].txn && conflict(x, i, j)) edges.insert({x[i].txn, x[j].txn});
  return edges;
}

bool tso_serializable(std::span<const Event> eta) {
  std::map<TxnName, std::vector<TxnName>> succ;
  for (const auto& [a, b] : tso_conflict_graph(eta)) succ[a].push_back(b);
  std::map<TxnName, int> state;  // 1 on the path, 2 done
  bool cyclic = false;
  auto visit = [&](auto&& self, const TxnName& u) -> void {
    state[u] = 1;
    for (const TxnName& v : succ[u]) {
      if (cyclic) return;
      if (state[v] == 1) cyclic = true;
      else if (state[v] == 0) self(self, v);
    }
    state[u] = 2;
  };
  for (const auto& [u, vs] : succ)
    if (!cyclic && state[u] == 0) visit(visit, u);
  return !cyclic;
}

}  // namespace atomcheck::naive
