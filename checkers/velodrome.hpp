// Velodrome (Flanagan, Freund, Yi, PLDI'08) as the AeroDrome paper uses it for its
// baseline and as RegionTrack describes it: a transaction happens-before graph with at
// most one edge per ordered pair of nodes, a cycle check at every new edge, garbage
// collection of finished nodes that have no incoming edge, and blame only for increasing
// cycles. It answers both questions of DESIGN.md: trace conflict serializability (exact:
// the graph's reachability equals the transaction order's) and blame (sound but
// incomplete: the graph keeps only the first pair of events per edge, so some blamed
// transactions are missed, as RegionTrack's Fig. 1(c) shows; those misses are data).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "checker.hpp"

namespace atomcheck {

// Departures from the published algorithm, for yardsticks only (never registered): the
// property tests use them to tell which of Velodrome's missed blames come from which of
// its economies. The default is Velodrome.
struct VelodromeVariant {
  // Velodrome keeps one edge per ordered pair of nodes, labelled with the first
  // conflicting pair of events, and checks nothing when a conflict repeats an edge.
  // true: one labelled edge per conflict, each checked.
  bool every_conflict_label = false;
  // Velodrome (as RAPID) lets a unary event join its thread's last node when every other
  // predecessor already reaches that node: sound for cycles, but the reachability it
  // relies on need not be increasing, so blame information is lost. false: always a
  // fresh node.
  bool merge_unary = true;
};

class VelodromeChecker final : public Checker {
 public:
  // Counters for tests and benchmarks; they say what the graph cost, never the verdict.
  struct Stats {
    std::uint64_t nodes_created = 0;    // fresh nodes (transactions and unary events)
    std::uint64_t unary_merged = 0;     // unary events that joined their thread's last node
    std::uint64_t unary_dropped = 0;    // unary events with no live predecessor: no node
    std::uint64_t nodes_collected = 0;  // nodes removed by garbage collection
    std::uint64_t edges_added = 0;
    std::uint64_t edges_duplicate = 0;  // conflict between an already connected pair
    std::uint64_t cycle_searches = 0;   // searches at new edges (plain and increasing)
    std::uint64_t nodes_visited = 0;    // total work of those searches
    std::uint32_t live_nodes = 0;
    std::uint32_t peak_live_nodes = 0;
  };

  explicit VelodromeChecker(const CheckerOptions& options = {},
                            const VelodromeVariant& variant = VelodromeVariant{})
      : options_(options), variant_(variant) {}
  std::string_view name() const override { return "velodrome"; }
  void on_event(const Event& e) override;
  Verdict verdict() override;
  void reset() override;
  bool live_events(LiveEvents& out) const override;

  const Stats& stats() const { return stats_; }

 private:
  using NodeId = std::uint32_t;

  // A node as seen by a table (last write of x, last release of l, ...): the node with
  // the generation it had, the event recorded there and the first event of that event's
  // own transaction (a node can hold several unary transactions of its thread, see
  // on_unary). A ref whose generation is out of date points at a collected node.
  struct Ref {
    NodeId node = 0xffffffffu;
    std::uint32_t gen = 0;
    EventIndex event = kNoEvent;
    EventIndex txn = kNoEvent;
  };
  // Edge from its owner node to `to`, labelled with the first pair of conflicting events
  // that created it (Velodrome never updates the label: RegionTrack Fig. 1(c)).
  struct Edge {
    NodeId to;
    EventIndex from_event, to_event;
    EventIndex from_txn;  // transaction of from_event (to_event's is to's first txn)
  };
  struct Node {
    ThreadId thread = 0;
    EventIndex first = kNoEvent;  // first event of the node's first transaction
    std::uint32_t gen = 0;
    std::uint32_t in_degree = 0;
    bool open = false;  // the current transaction of its thread: never collected
    bool live = false;
    bool blamed = false;
    std::vector<Edge> out;
    // Sources of the incoming edges, kept only while edges can still arrive (the node is
    // open, or a unary node being built), to take them out of the edge set when it stops.
    // Entries carry the source's generation.
    std::vector<std::pair<NodeId, std::uint32_t>> in;
  };
  struct ThreadState {
    Ref last;             // node of the thread's latest event (and that event)
    Ref fork_parent;      // the forking event, until the thread's first event
    std::uint32_t depth = 0;
    bool started = false;
    NodeId cur = 0xffffffffu;  // open transaction node, when depth > 0
  };

  // The edges into nodes that can still receive edges (the sources in their `in` lists),
  // as an open-addressing hash set keyed by (source slot and generation, target slot):
  // the one-edge-per-pair check in O(1) whatever the degrees. Entries go when their
  // target finishes, so the set stays as small as the accepting nodes' in-lists.
  class EdgeSet {
   public:
    bool contains(std::uint64_t from, std::uint32_t to) const;
    void insert(std::uint64_t from, std::uint32_t to);
    void erase(std::uint64_t from, std::uint32_t to);
    void clear();

   private:
    struct Slot {
      std::uint64_t from = 0;
      std::uint32_t to = 0;
      bool used = false;
    };
    std::size_t home(std::uint64_t from, std::uint32_t to) const;
    std::vector<Slot> slots_;
    std::size_t count_ = 0;
  };
  static std::uint64_t edge_key(NodeId n, std::uint32_t gen) {
    return (static_cast<std::uint64_t>(n) << 32) | gen;
  }
  void stop_accepting(NodeId n);

  bool alive(const Ref& r) const {
    return r.node < nodes_.size() && nodes_[r.node].live && nodes_[r.node].gen == r.gen;
  }
  Ref ref_to(NodeId n, EventIndex ev, EventIndex txn) const {
    return Ref{n, nodes_[n].gen, ev, txn};
  }
  ThreadState& thread(ThreadId t);
  NodeId new_node(ThreadId t, EventIndex first, bool open);
  void collect(NodeId n);
  void gather_preds(const Event& e, ThreadState& ts);
  void add_edge(const Ref& from, NodeId to, EventIndex to_event);
  bool reaches(NodeId from, NodeId to);
  bool find_path(NodeId from, NodeId to);
  bool find_increasing_path(NodeId from, NodeId to, EventIndex latest_exit);
  void record_cycle(const Ref& from, NodeId to, EventIndex to_event);
  void record_blame(const Ref& from, NodeId to, EventIndex to_event);
  void update_tables(const Event& e, ThreadState& ts, const Ref& here);
  bool wants_blame() const { return options_.all || blamed_.empty(); }

  CheckerOptions options_;
  VelodromeVariant variant_;
  EventIndex next_index_ = 0;
  std::vector<Node> nodes_;
  std::vector<NodeId> free_;
  std::vector<ThreadState> threads_;
  std::vector<Ref> last_write_;                // per variable
  // Per variable, the last read of each thread that read it, as a short unsorted list:
  // a dense thread-indexed row would cost O(threads) memory per variable.
  struct ReadEntry {
    ThreadId thread;
    Ref ref;
  };
  std::vector<std::vector<ReadEntry>> last_read_;
  std::vector<Ref> last_release_;              // per lock

  // Verdict so far.
  bool cycle_found_ = false;
  EventIndex detected_at_ = kNoEvent;
  std::vector<CycleEdge> cycle_;
  std::vector<Blame> blamed_;

  // Scratch space of the searches, kept between events (no allocation once warm).
  std::vector<Ref> preds_;
  std::vector<std::uint32_t> mark_;  // visit stamp per node slot
  std::uint32_t stamp_ = 0;
  std::vector<NodeId> parent_;       // search tree: predecessor node
  std::vector<std::uint32_t> parent_edge_;  // index of the edge in parent's out list
  std::vector<EventIndex> entry_;    // increasing search: earliest entry event
  std::vector<NodeId> work_;
  std::vector<std::pair<EventIndex, NodeId>> heap_;
  std::vector<NodeId> dead_;
  EdgeSet edge_set_;

  Stats stats_;
};

}  // namespace atomcheck
