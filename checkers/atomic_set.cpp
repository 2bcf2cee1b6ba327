// The atomic-set checker (Hammer et al., ICSE 2008, Fig. 5) and the shared helpers:
// the pattern table of Fig. 2, name resolution of declarations, unit bookkeeping.
#include "checkers/atomic_set.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace atomcheck {

namespace {

constexpr bool U = false, U2 = true, R = false, W = true, L1 = false, L2 = true;

struct Pattern {
  int length;
  PatternStep steps[4];
};

// Fig. 2, row by row.
constexpr Pattern kPatterns[kPatternCount] = {
    {3, {{U, R, L1}, {U2, W, L1}, {U, W, L1}}},               // 1
    {3, {{U, R, L1}, {U2, W, L1}, {U, R, L1}}},               // 2
    {3, {{U, W, L1}, {U2, R, L1}, {U, W, L1}}},               // 3
    {3, {{U, W, L1}, {U2, W, L1}, {U, R, L1}}},               // 4
    {3, {{U, W, L1}, {U2, W, L1}, {U, W, L1}}},               // 5
    {4, {{U, W, L1}, {U2, W, L1}, {U2, W, L2}, {U, W, L2}}},  // 6
    {4, {{U, W, L1}, {U2, W, L2}, {U2, W, L1}, {U, W, L2}}},  // 7
    {4, {{U, W, L1}, {U2, W, L2}, {U, W, L2}, {U2, W, L1}}},  // 8
    {4, {{U, W, L1}, {U2, R, L1}, {U2, R, L2}, {U, W, L2}}},  // 9
    {4, {{U, W, L1}, {U2, R, L2}, {U2, R, L1}, {U, W, L2}}},  // 10
    {4, {{U, R, L1}, {U2, W, L1}, {U2, W, L2}, {U, R, L2}}},  // 11
    {4, {{U, R, L1}, {U2, W, L2}, {U2, W, L1}, {U, R, L2}}},  // 12
    {4, {{U, R, L1}, {U2, W, L2}, {U, R, L2}, {U2, W, L1}}},  // 13
    {4, {{U, W, L1}, {U2, R, L2}, {U, W, L2}, {U2, R, L1}}},  // 14
};

// Automata of patterns 1-5 are judged in (u,u',l,*) tuples, those of 6-14 in
// (u,u',l1,l2) tuples; both advance in every tuple that sees their events, so that a
// refined tuple starts from its summary's state.
constexpr std::uint16_t kSingleLocation = 0x1f;   // patterns 1-5
constexpr std::uint16_t kTwoLocations = 0x3fe0;   // patterns 6-14

int state_of(std::uint64_t bits, int p) { return static_cast<int>((bits >> (3 * p)) & 7); }

}  // namespace

int pattern_length(int p) { return kPatterns[p - 1].length; }
const PatternStep& pattern_step(int p, int step) { return kPatterns[p - 1].steps[step]; }

std::string pattern_text(int p) {
  std::string out;
  for (int s = 0; s < pattern_length(p); ++s) {
    const PatternStep& st = pattern_step(p, s);
    if (s) out += ' ';
    out += fmt::format("{}_{}({})", st.write ? 'W' : 'R', st.second_unit ? "u'" : "u",
                       p <= 5 ? "l" : st.loc2 ? "l2" : "l1");
  }
  return out;
}

std::string atomic_set_name(const AtomicSets& sets, std::uint32_t set) {
  if (set < sets.names.size()) return sets.names[set];
  return "(all)";
}

bool resolve_atomic_sets(const AtomicSetNames& decl, const Names& names, AtomicSets& out,
                         std::string& error) {
  out = AtomicSets{};
  auto set_id = [&](const std::string& name) -> std::uint32_t {
    for (std::uint32_t s = 0; s < out.names.size(); ++s)
      if (out.names[s] == name) return s;
    if (out.names.size() >= AtomicSets::kMaxSets) return kNoId;
    out.names.push_back(name);
    return static_cast<std::uint32_t>(out.names.size() - 1);
  };
  for (const auto& [set, vars] : decl.sets) {
    std::uint32_t s = set_id(set);
    if (s == kNoId) {
      error = fmt::format("more than {} atomic sets", AtomicSets::kMaxSets);
      return false;
    }
    for (const std::string& v : vars) {
      std::uint32_t id = names.vars.find(v);
      if (id == kNoId) continue;
      if (out.var_set.size() <= id) out.var_set.resize(id + 1, kNoId);
      if (out.var_set[id] != kNoId && out.var_set[id] != s) {
        error = fmt::format("variable \"{}\" is in atomic sets \"{}\" and \"{}\"", v,
                            out.names[out.var_set[id]], set);
        return false;
      }
      out.var_set[id] = s;
    }
  }
  for (const auto& [label, sets] : decl.units) {
    std::uint64_t mask = 0;
    for (const std::string& set : sets) {
      std::uint32_t s = set_id(set);
      if (s == kNoId) {
        error = fmt::format("more than {} atomic sets", AtomicSets::kMaxSets);
        return false;
      }
      mask |= std::uint64_t{1} << s;
    }
    std::uint32_t id = names.labels.find(label);
    if (id == kNoId) continue;
    if (out.label_units.size() <= id) out.label_units.resize(id + 1, AtomicSets::kEverySet);
    // A label declared twice is a unit on the union (a block may declare itself each time).
    out.label_units[id] = out.label_units[id] == AtomicSets::kEverySet ? mask : out.label_units[id] | mask;
  }
  return true;
}

// ---- the checker --------------------------------------------------------------------

std::size_t AtomicSetChecker::KeyHash::operator()(const Key& k) const noexcept {
  std::uint64_t a = (std::uint64_t{k.u} << 32) | k.u2, b = (std::uint64_t{k.l1} << 32) | k.l2;
  std::uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
  h ^= h >> 29;
  return static_cast<std::size_t>(h * 0xbf58476d1ce4e5b9ull);
}

AtomicSetChecker::AtomicSetChecker(const CheckerOptions& options)
    : sets_(options.atomic_sets), all_(options.all) {}

void AtomicSetChecker::reset() {
  next_ = 0;
  units_.clear();
  for (auto& s : stacks_) s.clear();
  tuples_.clear();
  index_.clear();
  fresh_.clear();
  matches_.clear();
  max_tuples_ = 0;
}

std::uint32_t AtomicSetChecker::new_unit(ThreadId t, EventIndex first) {
  units_.push_back(Unit{t, first, false});
  return static_cast<std::uint32_t>(units_.size() - 1);
}

void AtomicSetChecker::on_event(const Event& e) {
  const EventIndex at = next_++;
  if (e.thread >= stacks_.size()) stacks_.resize(e.thread + 1);
  std::vector<Open>& stack = stacks_[e.thread];
  switch (e.op) {
    case Op::begin: stack.push_back(Open{e.target, kNoId, at}); return;
    case Op::end:
      if (stack.empty()) return;
      if (stack.back().unit != kNoId) finish(stack.back().unit);
      stack.pop_back();
      return;
    case Op::read:
    case Op::write:
    case Op::commit:
    case Op::rmw: break;
    default: return;
  }
  const std::uint64_t bit = std::uint64_t{1} << set_of(e.target);
  Open* owner = nullptr;
  for (Open& o : stack)
    if (sets_.units_of(o.label) & bit) {
      owner = &o;
      break;
    }
  const bool reads = e.op == Op::read || e.op == Op::rmw;
  const bool writes = e.op != Op::read;
  if (owner) {
    if (owner->unit == kNoId) owner->unit = new_unit(e.thread, owner->begin);
    access(owner->unit, e.target, reads, writes, at);
  } else {
    std::uint32_t u = new_unit(e.thread, at);
    access(u, e.target, reads, writes, at);
    finish(u);
  }
}

void AtomicSetChecker::ensure(const Key& k, std::uint64_t bits) {
  if (index_.count(k)) return;
  for (const Tuple& t : fresh_)
    if (t.key == k) return;
  fresh_.push_back(Tuple{k, bits, 0});
}

// Create(e) then Update(e) of Fig. 5 for an access of `unit` to `var`.
void AtomicSetChecker::access(std::uint32_t u, VarId l, bool reads, bool writes, EventIndex at) {
  const ThreadId t = units_[u].thread;
  const std::uint32_t set = set_of(l);
  fresh_.clear();
  // Create. Refined tuples copy their most refined existing summary: a (u',u,l',*) has
  // seen every event the (u',*,l',*) has, and u's events on l' as well.
  ensure(Key{u, kNoId, l, kNoId}, 0);
  for (int pass = 0; pass < 2; ++pass) {
    for (const Tuple& b : tuples_) {
      const Key& k = b.key;
      if (k.l2 != kNoId) continue;
      const bool summary = k.u2 == kNoId;
      if ((pass == 0) == summary) continue;  // pass 0: (a,b,l',*); pass 1: (a,*,l',*)
      if (set_of(k.l1) != set) continue;
      if (summary) {
        if (k.u == u || units_[k.u].thread == t) continue;
        if (k.l1 == l) ensure(Key{k.u, u, l, kNoId}, b.bits);
        else ensure(Key{k.u, u, k.l1, l}, b.bits);
      } else if (k.l1 != l && (k.u == u || k.u2 == u)) {
        ensure(Key{k.u, k.u2, k.l1, l}, b.bits);
      }
    }
  }
  for (Tuple& f : fresh_) {
    index_.emplace(f.key, static_cast<std::uint32_t>(tuples_.size()));
    tuples_.push_back(f);
  }
  max_tuples_ = std::max(max_tuples_, tuples_.size());
  // Update.
  for (Tuple& b : tuples_) {
    const Key& k = b.key;
    if (k.u != u && k.u2 != u) continue;
    if (k.l1 != l && k.l2 != l) continue;
    update(b, u, l, reads, writes, at);
  }
}

void AtomicSetChecker::update(Tuple& b, std::uint32_t u, VarId l, bool reads, bool writes,
                              EventIndex at) {
  const Key& k = b.key;
  const bool second = k.u2 == u;
  const bool loc2 = k.l2 == l;
  const bool refined = k.l2 != kNoId;
  std::uint64_t bits = b.bits;
  for (int p = 0; p < kPatternCount; ++p) {
    const Pattern& pat = kPatterns[p];
    if (refined && p < 5) continue;  // 1-5 live in (u,u',l,*)
    int s = state_of(bits, p);
    if (s >= pat.length) continue;
    const PatternStep& st = pat.steps[s];
    if (st.second_unit != second || st.loc2 != loc2) continue;
    if (st.write ? !writes : !reads) continue;
    ++s;
    bits = (bits & ~(std::uint64_t{7} << (3 * p))) | (std::uint64_t(s) << (3 * p));
    if (s < pat.length || k.u2 == kNoId) continue;
    const std::uint16_t mask = refined ? kTwoLocations : kSingleLocation;
    if (!((mask >> p) & 1) || ((b.reported >> p) & 1)) continue;
    b.reported = static_cast<std::uint16_t>(b.reported | (1u << p));
    if (!matches_.empty() && !all_) continue;
    PatternMatch m;
    m.pattern = p + 1;
    m.u = TxnRef{units_[k.u].thread, units_[k.u].first};
    m.u2 = TxnRef{units_[k.u2].thread, units_[k.u2].first};
    m.l1 = k.l1;
    m.l2 = refined ? k.l2 : k.l1;
    m.set = set_of(k.l1);
    m.at = at;
    matches_.push_back(m);
  }
  b.bits = bits;
}

// GC() of Fig. 5: a finished unit's summaries go, and so does every tuple whose two
// units have both finished (no later event can advance it).
void AtomicSetChecker::finish(std::uint32_t u) {
  units_[u].done = true;
  std::size_t out = 0;
  for (std::size_t i = 0; i < tuples_.size(); ++i) {
    const Key& k = tuples_[i].key;
    const bool dead = k.u2 == kNoId ? k.u == u : units_[k.u].done && units_[k.u2].done;
    if (dead) {
      index_.erase(k);
      continue;
    }
    if (out != i) {
      tuples_[out] = tuples_[i];
      index_[tuples_[out].key] = static_cast<std::uint32_t>(out);
    }
    ++out;
  }
  tuples_.resize(out);
}

Verdict AtomicSetChecker::verdict() {
  Verdict v;
  v.checker = "atomic-set";
  v.answers_serializability = true;
  for (const auto& s : stacks_) v.open_at_end |= !s.empty();
  if (matches_.empty()) return v;
  v.serializable = false;
  const PatternMatch& m = matches_.front();
  v.detected_at = m.at;
  v.cycle.push_back(CycleEdge{m.u, m.u2, kNoEvent, kNoEvent});
  v.cycle.push_back(CycleEdge{m.u2, m.u, kNoEvent, kNoEvent});
  for (const PatternMatch& x : matches_) {
    Blame b;
    b.txn = x.u;
    b.at = x.at;
    if (std::none_of(v.blamed.begin(), v.blamed.end(), [&](const Blame& o) { return o.txn == b.txn; }))
      v.blamed.push_back(b);
    if (!v.note.empty()) v.note += "; ";
    v.note += fmt::format(
        "pattern {} ({}) on atomic set {}: u = T{}@{}, u' = T{}@{}, l1 = v{}, l2 = v{}, at event {}",
        x.pattern, pattern_text(x.pattern), atomic_set_name(sets_, x.set), x.u.thread, x.u.first,
        x.u2.thread, x.u2.first, x.l1, x.l2, x.at);
  }
  return v;
}

}  // namespace atomcheck
