// The happens-before judge: relations as n x n boolean matrices, straight from RC11.
//   rs = [W]; (po|loc)?; (rf; rmw)*
//   sw = [E⊒rel]; ([F]; po)?; rs; rf; [R⊒rlx]; (po; [F])?; [E⊒acq]
//        ∪ unlock to every later lock of its mutex ∪ spawn to the child's events
//        ∪ the child's events to the join
//   hb = (po ∪ sw)+
#include "tests/support/hb_judge.hpp"

#include <stdexcept>
#include <string>

namespace atomcheck::testing_support {

namespace {

using Matrix = std::vector<std::vector<bool>>;

bool is_release(std::memory_order mo) {
  return mo == std::memory_order_release || mo == std::memory_order_acq_rel || mo == std::memory_order_seq_cst;
}
bool is_acquire(std::memory_order mo) {
  return mo == std::memory_order_acquire || mo == std::memory_order_consume || mo == std::memory_order_acq_rel ||
         mo == std::memory_order_seq_cst;
}
bool writes(const JudgeEvent& e) { return e.kind == JudgeEvent::write || e.kind == JudgeEvent::rmw; }
bool reads(const JudgeEvent& e) { return e.kind == JudgeEvent::read || e.kind == JudgeEvent::rmw; }
bool read_value(const JudgeEvent& e, std::int64_t& v) {
  if (e.kind == JudgeEvent::read) v = e.value;
  else if (e.kind == JudgeEvent::rmw) v = e.old;
  else return false;
  return true;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> racing_pairs(const std::vector<JudgeEvent>& ev) {
  const std::size_t n = ev.size();
  // rf[r] = the write r reads from: the write of r's variable with r's value.
  std::vector<std::size_t> rf(n, n);
  for (std::size_t r = 0; r < n; ++r) {
    std::int64_t v = 0;
    if (!read_value(ev[r], v)) continue;
    for (std::size_t w = 0; w < n; ++w)
      if (w != r && writes(ev[w]) && ev[w].target == ev[r].target && ev[w].value == v) rf[r] = w;
    if (rf[r] == n)
      throw std::logic_error("judge: event " + std::to_string(r) + " read a value no write wrote");
  }
  Matrix po(n, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) po[a][b] = ev[a].thread == ev[b].thread;
  // rs as a matrix: w rs w'.
  Matrix rs(n, std::vector<bool>(n, false));
  for (std::size_t w = 0; w < n; ++w) {
    if (!writes(ev[w])) continue;
    rs[w][w] = true;
    for (std::size_t w2 = 0; w2 < n; ++w2)
      if (po[w][w2] && writes(ev[w2]) && ev[w2].target == ev[w].target) rs[w][w2] = true;
  }
  for (bool grew = true; grew;) {  // close under rf; rmw
    grew = false;
    for (std::size_t w = 0; w < n; ++w)
      for (std::size_t m = 0; m < n; ++m)
        for (std::size_t u = 0; u < n; ++u)
          if (rs[w][m] && ev[u].kind == JudgeEvent::rmw && rf[u] == m && !rs[w][u]) rs[w][u] = grew = true;
  }
  Matrix hb = po;
  for (std::size_t w = 0; w < n; ++w) {
    if (!writes(ev[w]) || !ev[w].atomic) continue;
    for (std::size_t r = 0; r < n; ++r) {
      if (!reads(ev[r]) || !ev[r].atomic || rf[r] == n || !rs[w][rf[r]]) continue;
      // Sources: w itself if release; a release fence po-before w.
      for (std::size_t s = 0; s < n; ++s) {
        const bool source = (s == w && is_release(ev[w].mo)) ||
                            (ev[s].kind == JudgeEvent::fence && is_release(ev[s].mo) && po[s][w]);
        if (!source) continue;
        // Targets: r itself if acquire; an acquire fence po-after r.
        for (std::size_t t = 0; t < n; ++t) {
          const bool target = (t == r && is_acquire(ev[r].mo)) ||
                              (ev[t].kind == JudgeEvent::fence && is_acquire(ev[t].mo) && po[r][t]);
          if (target && s != t) hb[s][t] = true;
        }
      }
    }
  }
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (ev[a].kind == JudgeEvent::unlock && ev[b].kind == JudgeEvent::lock && a < b && ev[a].target == ev[b].target)
        hb[a][b] = true;
      if (ev[a].kind == JudgeEvent::spawn && ev[b].thread == ev[a].target) hb[a][b] = true;
      if (ev[b].kind == JudgeEvent::join && ev[a].thread == ev[b].target) hb[a][b] = true;
    }
  }
  for (std::size_t k = 0; k < n; ++k)  // Floyd-Warshall
    for (std::size_t a = 0; a < n; ++a)
      if (hb[a][k])
        for (std::size_t b = 0; b < n; ++b)
          if (hb[k][b]) hb[a][b] = true;
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t a = 0; a < n; ++a) {
    const JudgeEvent& x = ev[a];
    if (x.atomic || !(reads(x) || writes(x))) continue;
    for (std::size_t b = a + 1; b < n; ++b) {
      const JudgeEvent& y = ev[b];
      if (y.atomic || !(reads(y) || writes(y)) || y.target != x.target || y.thread == x.thread) continue;
      if (!writes(x) && !writes(y)) continue;
      if (!hb[a][b] && !hb[b][a]) out.emplace_back(a, b);
    }
  }
  return out;
}

}  // namespace atomcheck::testing_support
