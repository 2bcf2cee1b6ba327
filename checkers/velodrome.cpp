// Velodrome's transaction graph (see velodrome.hpp). Where its pieces come from:
// - edges only from the last conflicting node of each kind (last write of x, last read of
//   x by each thread, last release of l, the thread's previous node, the forking node,
//   the joined thread's last node): every other conflict is implied by transitivity, so
//   reachability, and with it the serializability verdict, is exact;
// - a unary event joins its thread's last node L when every other live predecessor
//   already reaches L (as RAPID does): then no edge is added, and since nothing ever
//   enters a finished node again, a cycle through the merged node is a cycle through L
//   followed by the event in program order; otherwise the event gets a fresh node;
// - a finished node without incoming edges can never get one (edges only enter the node
//   of the event being processed), so it is on no cycle and is collected, cascading;
// - blame goes to the transaction whose new incoming edge closes an *increasing* cycle:
//   a path from it back to itself along which, inside every node, the edge labels
//   (first conflicting events, never updated) follow program order. Such a path is a
//   real conflict-happens-before chain, so every blame satisfies RegionTrack Theorem 2.
#include "checkers/velodrome.hpp"

#include <algorithm>
#include <utility>

namespace atomcheck {

namespace {
constexpr std::uint32_t kNone = 0xffffffffu;
}

std::size_t VelodromeChecker::EdgeSet::home(std::uint64_t from, std::uint32_t to) const {
  std::uint64_t h = from * 0x9E3779B97F4A7C15ULL ^ (to + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
  h ^= h >> 29;
  return static_cast<std::size_t>(h) & (slots_.size() - 1);
}

bool VelodromeChecker::EdgeSet::contains(std::uint64_t from, std::uint32_t to) const {
  if (slots_.empty()) return false;
  for (std::size_t i = home(from, to);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& s = slots_[i];
    if (!s.used) return false;
    if (s.from == from && s.to == to) return true;
  }
}

void VelodromeChecker::EdgeSet::insert(std::uint64_t from, std::uint32_t to) {
  if (2 * (count_ + 1) > slots_.size()) {
    // Grow to keep the load at most one half; rehash every entry.
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
    count_ = 0;
    for (const Slot& s : old)
      if (s.used) insert(s.from, s.to);
  }
  std::size_t i = home(from, to);
  while (slots_[i].used) i = (i + 1) & (slots_.size() - 1);
  slots_[i] = Slot{from, to, true};
  ++count_;
}

// Linear probing with backward-shift deletion: no tombstones, so probes stay short.
void VelodromeChecker::EdgeSet::erase(std::uint64_t from, std::uint32_t to) {
  if (slots_.empty()) return;
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(from, to);
  for (;; i = (i + 1) & mask) {
    if (!slots_[i].used) return;
    if (slots_[i].from == from && slots_[i].to == to) break;
  }
  std::size_t hole = i;
  for (std::size_t j = (hole + 1) & mask; slots_[j].used; j = (j + 1) & mask) {
    std::size_t h = home(slots_[j].from, slots_[j].to);
    // Move j into the hole unless its home lies cyclically in (hole, j].
    bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (!stays) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole].used = false;
  --count_;
}

void VelodromeChecker::EdgeSet::clear() {
  std::fill(slots_.begin(), slots_.end(), Slot{});
  count_ = 0;
}

void VelodromeChecker::stop_accepting(NodeId n) {
  Node& node = nodes_[n];
  for (const auto& [src, gen] : node.in) edge_set_.erase(edge_key(src, gen), n);
  node.in.clear();
}

VelodromeChecker::ThreadState& VelodromeChecker::thread(ThreadId t) {
  if (t >= threads_.size()) threads_.resize(static_cast<std::size_t>(t) + 1);
  return threads_[t];
}

VelodromeChecker::NodeId VelodromeChecker::new_node(ThreadId t, EventIndex first, bool open) {
  NodeId n;
  if (!free_.empty()) {
    n = free_.back();
    free_.pop_back();
  } else {
    n = static_cast<NodeId>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& node = nodes_[n];
  node.thread = t;
  node.first = first;
  node.in_degree = 0;
  node.open = open;
  node.live = true;
  node.blamed = false;
  node.out.clear();
  node.in.clear();
  ++stats_.nodes_created;
  ++stats_.live_nodes;
  stats_.peak_live_nodes = std::max(stats_.peak_live_nodes, stats_.live_nodes);
  return n;
}

void VelodromeChecker::collect(NodeId n) {
  dead_.clear();
  dead_.push_back(n);
  while (!dead_.empty()) {
    NodeId m = dead_.back();
    dead_.pop_back();
    Node& node = nodes_[m];
    for (const Edge& e : node.out) {
      Node& succ = nodes_[e.to];
      if (--succ.in_degree == 0 && !succ.open) dead_.push_back(e.to);
    }
    node.out.clear();
    node.in.clear();
    node.live = false;
    ++node.gen;  // every ref to the old node is now stale
    free_.push_back(m);
    --stats_.live_nodes;
    ++stats_.nodes_collected;
  }
}

// Predecessors of event e other than its thread's own history: the nodes holding the
// last earlier events e conflicts with, one per kind (the rest follow by transitivity).
void VelodromeChecker::gather_preds(const Event& e, ThreadState& ts) {
  preds_.clear();
  if (!ts.started) {
    ts.started = true;
    if (alive(ts.fork_parent)) preds_.push_back(ts.fork_parent);
  }
  const std::uint32_t x = e.target;
  switch (e.op) {
    case Op::read:
      if (x != kNoId && x < last_write_.size()) preds_.push_back(last_write_[x]);
      break;
    case Op::write:
    case Op::commit:
    case Op::rmw:
      if (x != kNoId && x < last_write_.size()) preds_.push_back(last_write_[x]);
      if (x != kNoId && x < last_read_.size())
        for (const ReadEntry& r : last_read_[x]) preds_.push_back(r.ref);
      break;
    case Op::acquire:
      if (x != kNoId && x < last_release_.size()) preds_.push_back(last_release_[x]);
      break;
    case Op::join:
      if (x != kNoId && x < threads_.size()) preds_.push_back(threads_[x].last);
      break;
    default:
      break;
  }
}

void VelodromeChecker::update_tables(const Event& e, ThreadState& ts, const Ref& here) {
  const std::uint32_t x = e.target;
  switch (e.op) {
    case Op::read:
      if (x != kNoId) {
        if (x >= last_read_.size()) last_read_.resize(static_cast<std::size_t>(x) + 1);
        std::vector<ReadEntry>& readers = last_read_[x];
        auto it = std::find_if(readers.begin(), readers.end(),
                               [&](const ReadEntry& r) { return r.thread == e.thread; });
        if (it != readers.end()) it->ref = here;
        else readers.push_back(ReadEntry{e.thread, here});
      }
      break;
    case Op::write:
    case Op::commit:
    case Op::rmw:
      if (x != kNoId) {
        if (x >= last_write_.size()) last_write_.resize(static_cast<std::size_t>(x) + 1);
        last_write_[x] = here;
      }
      break;
    case Op::release:
      if (x != kNoId) {
        if (x >= last_release_.size()) last_release_.resize(static_cast<std::size_t>(x) + 1);
        last_release_[x] = here;
      }
      break;
    case Op::fork:
      // threads_ was sized for the child in on_event, so `ts` stays valid.
      if (x != kNoId) threads_[x].fork_parent = here;
      break;
    default:
      break;
  }
  ts.last = here;
}

bool VelodromeChecker::reaches(NodeId from, NodeId to) {
  if (from == to) return true;
  ++stats_.cycle_searches;
  if (mark_.size() < nodes_.size()) mark_.resize(nodes_.size(), 0);
  ++stamp_;
  work_.clear();
  work_.push_back(from);
  mark_[from] = stamp_;
  while (!work_.empty()) {
    NodeId m = work_.back();
    work_.pop_back();
    ++stats_.nodes_visited;
    for (const Edge& e : nodes_[m].out) {
      if (e.to == to) return true;
      if (mark_[e.to] != stamp_) {
        mark_[e.to] = stamp_;
        work_.push_back(e.to);
      }
    }
  }
  return false;
}

// Breadth-first, so the witness cycle is a shortest one; parent_ keeps the tree.
bool VelodromeChecker::find_path(NodeId from, NodeId to) {
  ++stats_.cycle_searches;
  const std::size_t n = nodes_.size();
  if (mark_.size() < n) mark_.resize(n, 0);
  if (parent_.size() < n) {
    parent_.resize(n);
    parent_edge_.resize(n);
  }
  ++stamp_;
  work_.clear();
  work_.push_back(from);
  mark_[from] = stamp_;
  for (std::size_t head = 0; head < work_.size(); ++head) {
    NodeId m = work_[head];
    ++stats_.nodes_visited;
    const std::vector<Edge>& out = nodes_[m].out;
    for (std::uint32_t i = 0; i < out.size(); ++i) {
      NodeId k = out[i].to;
      if (mark_[k] == stamp_) continue;
      mark_[k] = stamp_;
      parent_[k] = m;
      parent_edge_[k] = i;
      if (k == to) return true;
      work_.push_back(k);
    }
  }
  return false;
}

// Is there a path from `from` (entered at its first event) to `to`, entered no later
// than `latest_exit`, that leaves every node no earlier than it entered it? Entry events
// only grow along such a path, so Dijkstra on "earliest entry" settles each node once.
bool VelodromeChecker::find_increasing_path(NodeId from, NodeId to, EventIndex latest_exit) {
  ++stats_.cycle_searches;
  const std::size_t n = nodes_.size();
  if (mark_.size() < n) mark_.resize(n, 0);
  if (parent_.size() < n) {
    parent_.resize(n);
    parent_edge_.resize(n);
  }
  if (entry_.size() < n) entry_.resize(n);
  ++stamp_;
  heap_.clear();
  auto later = [](const std::pair<EventIndex, NodeId>& a, const std::pair<EventIndex, NodeId>& b) {
    return a.first > b.first;
  };
  mark_[from] = stamp_;
  entry_[from] = nodes_[from].first;
  heap_.emplace_back(entry_[from], from);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    auto [at, m] = heap_.back();
    heap_.pop_back();
    if (at != entry_[m]) continue;  // superseded by an earlier entry
    ++stats_.nodes_visited;
    if (m == to) return at <= latest_exit;
    const std::vector<Edge>& out = nodes_[m].out;
    for (std::uint32_t i = 0; i < out.size(); ++i) {
      const Edge& e = out[i];
      if (e.from_event < at) continue;  // would go back in program order inside m
      NodeId k = e.to;
      if (mark_[k] == stamp_ && entry_[k] <= e.to_event) continue;
      mark_[k] = stamp_;
      entry_[k] = e.to_event;
      parent_[k] = m;
      parent_edge_[k] = i;
      heap_.emplace_back(e.to_event, k);
      std::push_heap(heap_.begin(), heap_.end(), later);
    }
  }
  return false;
}

// The cycle to -> ... -> from (found by find_path) closed by the new edge from -> to,
// as transactions. Where a path enters a node in one of its transactions and leaves it
// from a later one of the same thread (a node holding merged unary events), the program
// order edge between the two is spelled out, so every edge names its own transactions.
void VelodromeChecker::record_cycle(const Ref& from, NodeId to, EventIndex to_event) {
  cycle_found_ = true;
  detected_at_ = to_event;
  std::vector<CycleEdge> raw;
  for (NodeId k = from.node; k != to; k = parent_[k]) {
    NodeId p = parent_[k];
    const Edge& e = nodes_[p].out[parent_edge_[k]];
    raw.push_back(CycleEdge{TxnRef{nodes_[p].thread, e.from_txn},
                            TxnRef{nodes_[k].thread, nodes_[k].first}, e.from_event,
                            e.to_event});
  }
  std::reverse(raw.begin(), raw.end());
  raw.push_back(CycleEdge{TxnRef{nodes_[from.node].thread, from.txn},
                          TxnRef{nodes_[to].thread, nodes_[to].first}, from.event, to_event});
  cycle_.clear();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    cycle_.push_back(raw[i]);
    const CycleEdge& next = raw[(i + 1) % raw.size()];
    if (!(raw[i].to == next.from))
      cycle_.push_back(CycleEdge{raw[i].to, next.from, raw[i].to_event, next.from_event});
  }
}

// After find_increasing_path(to, from.node, ...): blame `to`, naming as interfering event
// the first event of another thread on the chain.
void VelodromeChecker::record_blame(const Ref& from, NodeId to, EventIndex to_event) {
  Node& n = nodes_[to];
  n.blamed = true;
  EventIndex interfering = kNoEvent;
  for (NodeId k = from.node; k != to; k = parent_[k]) {
    const Edge& e = nodes_[parent_[k]].out[parent_edge_[k]];
    if (nodes_[k].thread != n.thread) interfering = e.to_event;  // keeps the earliest
  }
  if (interfering == kNoEvent) interfering = from.event;
  blamed_.push_back(Blame{TxnRef{n.thread, n.first}, interfering, to_event});
}

void VelodromeChecker::add_edge(const Ref& from, NodeId to, EventIndex to_event) {
  if (from.node == to) return;
  std::vector<Edge>& out = nodes_[from.node].out;
  std::vector<std::pair<NodeId, std::uint32_t>>& in = nodes_[to].in;
  bool exists = false, same_label = false;
  if (!variant_.every_conflict_label) {
    exists = edge_set_.contains(edge_key(from.node, from.gen), to);
  } else {
    for (const Edge& e : out) {
      if (e.to != to) continue;
      exists = true;
      same_label = same_label || e.from_event == from.event;
      if (!variant_.every_conflict_label) break;
    }
  }
  if (exists) {
    ++stats_.edges_duplicate;
    if (!variant_.every_conflict_label) return;  // Velodrome: no new edge, no check
  }
  if (!same_label) {
    out.push_back(Edge{to, from.event, to_event, from.txn});
    in.emplace_back(from.node, from.gen);
    if (!variant_.every_conflict_label) edge_set_.insert(edge_key(from.node, from.gen), to);
    ++nodes_[to].in_degree;
    ++stats_.edges_added;
  }
  // A node without outgoing edges closes no cycle (fresh nodes, unary nodes).
  if (nodes_[to].out.empty()) return;
  if (!cycle_found_) {
    if (!find_path(to, from.node)) return;
    record_cycle(from, to, to_event);
  }
  if (wants_blame() && !nodes_[to].blamed && find_increasing_path(to, from.node, from.event))
    record_blame(from, to, to_event);
}

void VelodromeChecker::on_event(const Event& e) {
  const EventIndex idx = next_index_++;
  thread(e.thread);
  if ((e.op == Op::fork || e.op == Op::join) && e.target != kNoId) thread(e.target);
  ThreadState& ts = threads_[e.thread];  // threads_ is not resized below

  if (e.op == Op::begin) {
    if (++ts.depth > 1) {
      ts.last.event = idx;
      return;
    }
    gather_preds(e, ts);
    preds_.push_back(ts.last);
    NodeId n = new_node(e.thread, idx, true);
    for (const Ref& p : preds_)
      if (alive(p)) add_edge(p, n, idx);
    ts.cur = n;
    ts.last = ref_to(n, idx, idx);
    return;
  }
  if (e.op == Op::end && ts.depth > 0) {
    ts.last.event = idx;
    if (--ts.depth > 0) return;
    NodeId n = ts.cur;
    ts.cur = kNone;
    nodes_[n].open = false;
    stop_accepting(n);  // nothing enters a finished node
    if (nodes_[n].in_degree == 0) collect(n);
    return;
  }

  if (ts.depth > 0) {
    // Inside a transaction: edges from every conflicting predecessor into its node.
    NodeId n = ts.cur;
    gather_preds(e, ts);
    for (const Ref& p : preds_)
      if (alive(p)) add_edge(p, n, idx);
    update_tables(e, ts, ref_to(n, idx, nodes_[n].first));
    return;
  }

  // A unary transaction (a stray `end` included: it conflicts with its thread only).
  gather_preds(e, ts);
  const bool last_alive = alive(ts.last);
  bool any_alive = last_alive, merge = last_alive && variant_.merge_unary;
  for (const Ref& p : preds_) {
    if (!alive(p)) continue;
    any_alive = true;
    if (merge && p.node != ts.last.node && !reaches(p.node, ts.last.node)) merge = false;
  }
  Ref here;
  if (!any_alive) {
    // Nothing live precedes it, so nothing can ever reach it: it needs no node.
    ++stats_.unary_dropped;
    here.event = idx;
    here.txn = idx;
  } else if (merge) {
    ++stats_.unary_merged;
    here = ref_to(ts.last.node, idx, idx);
  } else {
    NodeId n = new_node(e.thread, idx, false);
    if (last_alive) add_edge(ts.last, n, idx);
    for (const Ref& p : preds_)
      if (alive(p)) add_edge(p, n, idx);
    stop_accepting(n);
    here = ref_to(n, idx, idx);
  }
  update_tables(e, ts, here);
}

Verdict VelodromeChecker::verdict() {
  Verdict v;
  v.checker = "velodrome";
  v.answers_serializability = true;
  v.answers_blame = true;
  v.serializable = !cycle_found_;
  v.cycle = cycle_;
  v.detected_at = detected_at_;
  v.blamed = blamed_;
  for (const ThreadState& ts : threads_)
    if (ts.depth > 0) v.open_at_end = true;
  if (v.open_at_end)
    v.note = "a transaction was still open at the end of the trace; judged as ended there";
  if (cycle_found_ && blamed_.empty()) {
    if (!v.note.empty()) v.note += "; ";
    v.note += "no increasing cycle: no transaction blamed";
  }
  return v;
}

// Only live nodes and refs to them can reach a verdict again: a stale ref creates no
// edge, and a collected node is on no future cycle.
bool VelodromeChecker::live_events(LiveEvents& out) const {
  auto add = [&](EventIndex i) {
    if (i != kNoEvent) out.events.push_back(i);
  };
  auto add_ref = [&](const Ref& r) {
    if (!alive(r)) return;
    add(r.event);
    add(r.txn);
  };
  add(detected_at_);
  for (const CycleEdge& e : cycle_) {
    add(e.from.first);
    add(e.to.first);
    add(e.from_event);
    add(e.to_event);
  }
  for (const Blame& b : blamed_) {
    add(b.txn.first);
    add(b.interfering);
    add(b.at);
  }
  if (cycle_found_) out.first_problem = detected_at_;
  if (!blamed_.empty() && blamed_.front().at < out.first_problem) out.first_problem = blamed_.front().at;
  for (const Node& n : nodes_) {
    if (!n.live) continue;
    add(n.first);
    for (const Edge& e : n.out) {
      add(e.from_event);
      add(e.to_event);
      add(e.from_txn);
    }
  }
  for (const ThreadState& ts : threads_) {
    add_ref(ts.last);
    add_ref(ts.fork_parent);
  }
  for (const Ref& r : last_write_) add_ref(r);
  for (const std::vector<ReadEntry>& readers : last_read_)
    for (const ReadEntry& r : readers) add_ref(r.ref);
  for (const Ref& r : last_release_) add_ref(r);
  return true;
}

void VelodromeChecker::reset() {
  next_index_ = 0;
  free_.clear();
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    Node& n = nodes_[i];
    n.out.clear();
    n.in.clear();
    n.live = false;
    ++n.gen;
    free_.push_back(static_cast<NodeId>(i));
  }
  threads_.clear();
  last_write_.clear();
  for (std::vector<ReadEntry>& r : last_read_) r.clear();
  last_release_.clear();
  edge_set_.clear();
  cycle_found_ = false;
  detected_at_ = kNoEvent;
  cycle_.clear();
  blamed_.clear();
  stats_ = Stats{};
}

}  // namespace atomcheck
