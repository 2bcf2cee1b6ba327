// Values of recorded histories and the specifications of real logs (see lin_history.hpp).
#include "checkers/lin_history.hpp"

#include <algorithm>

namespace atomcheck::lin {

std::int64_t ValueTable::intern(const nlohmann::json& v) {
  if (v.is_null()) return kNone;
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) {
    // Beyond int64 (a uint64 above 2^63) the value is interned as any other.
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kInternedBase - 1)) {
      const std::int64_t i = v.get<std::int64_t>();
      if (i != kNone && i < kInternedBase) return i;
    }
  }
  if (v.is_string()) {
    auto it = strings.find(v.get_ref<const std::string&>());
    if (it != strings.end()) return it->second;
    return intern_string(std::string(v.get_ref<const std::string&>()));
  }
  auto [it, fresh] = ids.emplace(v.dump(), kInternedBase + static_cast<std::int64_t>(texts.size()));
  if (fresh) {
    texts.push_back(&it->first);
    is_string.push_back(0);
  }
  return it->second;
}

std::int64_t ValueTable::intern_string(std::string&& s) {
  auto [it, fresh] = strings.try_emplace(std::move(s), kInternedBase + static_cast<std::int64_t>(texts.size()));
  if (fresh) {
    texts.push_back(&it->first);
    is_string.push_back(1);
  }
  return it->second;
}

nlohmann::json ValueTable::value(std::int64_t id) const {
  if (id == kNone) return nullptr;
  if (id < kInternedBase) return id;
  const std::size_t k = static_cast<std::size_t>(id - kInternedBase);
  if (k < texts.size()) return is_string[k] ? nlohmann::json(*texts[k]) : nlohmann::json::parse(*texts[k]);
  return id;
}

std::string ValueTable::text(std::int64_t id) const {
  if (id >= kInternedBase && static_cast<std::size_t>(id - kInternedBase) < texts.size())
    return *texts[static_cast<std::size_t>(id - kInternedBase)];
  return value(id).dump();
}

namespace {

using State = std::vector<std::int64_t>;

bool gives(const Operation& op, bool check, std::int64_t want) { return !check || op.result == want; }

// etcd's register: read, write(v), cas(from, to) answering whether it swapped.
class CasRegisterSpec final : public Spec {
 public:
  std::string_view name() const override { return "cas-register"; }
  const std::vector<std::string>& methods() const override { return methods_; }
  State initial() const override { return {kNone}; }
  bool observer(const Operation& op) const override {
    return op.method == 0 || (op.method == 2 && !op.pending() && op.result == 0);
  }
  std::optional<RegisterShape> register_shape() const override {
    return RegisterShape{.read = 0, .write = 1, .initial = kNone};
  }
  bool step(State& s, const Operation& op, bool check) const override {
    switch (op.method) {
      case 0: return gives(op, check, s[0]);
      case 1: s[0] = op.arg; return true;
      default: {
        const bool swap = s[0] == op.arg;
        if (swap) s[0] = op.arg2;
        return gives(op, check, swap ? 1 : 0);
      }
    }
  }

 private:
  std::vector<std::string> methods_{"read", "write", "cas"};
};

// A key-value store whose keys are independent. The state is the keys touched, sorted,
// each as [key, n, chunk 1 .. chunk n]: n = 0 absent, else the value is the n chunks
// concatenated (n > 1 only after appends; put, write and cas leave one).
class KvSpec final : public Spec {
 public:
  explicit KvSpec(std::shared_ptr<const ValueTable> values) : values_(std::move(values)) {
    empty_ = find_empty_string();
  }
  std::string_view name() const override { return "kv"; }
  const std::vector<std::string>& methods() const override { return methods_; }
  std::optional<std::int64_t> key(const Operation& op) const override { return op.arg; }
  bool observer(const Operation& op) const override {
    return op.method == 0 || op.method == 3 || (op.method == 5 && !op.pending() && op.result == 0);
  }

  bool step(State& s, const Operation& op, bool check) const override {
    std::size_t i = 0;
    while (i < s.size() && s[i] < op.arg) i += 2 + static_cast<std::size_t>(s[i + 1]);
    if (i == s.size() || s[i] != op.arg) {
      if (op.method == 0 || op.method == 3) return !check || equals(s, i, op.result, op.method == 0, false);
      if (op.method == 5 && !equals(s, i, op.arg2, false, false)) return gives(op, check, 0);
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), {op.arg, 0});
    }
    switch (op.method) {
      case 0:  // get
      case 3:  // read
        return !check || equals(s, i, op.result, op.method == 0, true);
      case 1:  // put
      case 4:  // write
        set(s, i, op.arg2);
        return true;
      case 2: append(s, i, op.arg2); return true;
      default: {  // cas
        const bool swap = equals(s, i, op.arg2, false, true);
        if (swap) set(s, i, op.arg3);
        return gives(op, check, swap ? 1 : 0);
      }
    }
  }

 private:
  // The id of "" if the history has one (an absent key's get answers it), else a value no
  // result has.
  std::int64_t find_empty_string() const {
    auto it = values_->strings.find("");
    return it == values_->strings.end() ? kNone + 1 : it->second;
  }
  bool is_empty_text(std::int64_t v) const { return v == empty_; }

  // Does the value at entry i (or the absent key, when !present) equal v? A get reads an
  // absent key as "", a read as null.
  bool equals(const State& s, std::size_t i, std::int64_t v, bool as_string, bool present) const {
    const std::size_t n = present ? static_cast<std::size_t>(s[i + 1]) : 0;
    if (n == 0) return as_string ? is_empty_text(v) : v == kNone;
    if (n == 1) return s[i + 2] == v;
    // The chunks, one after the other, spell v's characters.
    const std::string* want = values_->string_at(v);
    if (!want) return false;
    std::size_t at = 0;
    for (std::size_t c = 0; c < n; ++c) {
      const std::int64_t chunk = s[i + 2 + c];
      const std::string* piece = values_->string_at(chunk);
      const std::string other = piece ? std::string() : values_->text(chunk);
      const std::string& t = piece ? *piece : other;
      if (want->compare(at, t.size(), t) != 0) return false;
      at += t.size();
    }
    return at == want->size();
  }
  void set(State& s, std::size_t i, std::int64_t v) const {
    const auto n = static_cast<std::ptrdiff_t>(s[i + 1]);
    const auto at = s.begin() + static_cast<std::ptrdiff_t>(i) + 2;
    if (n == 0) {
      s.insert(at, v);
    } else {
      s[i + 2] = v;
      s.erase(at + 1, at + n);
    }
    s[i + 1] = 1;
  }
  // null + v and "" + v are v; appending "" changes nothing.
  void append(State& s, std::size_t i, std::int64_t v) const {
    const std::size_t n = static_cast<std::size_t>(s[i + 1]);
    if (n == 0 || (n == 1 && is_empty_text(s[i + 2]))) {
      set(s, i, v);
      return;
    }
    if (is_empty_text(v)) return;
    s.insert(s.begin() + static_cast<std::ptrdiff_t>(i + 2 + n), v);
    ++s[i + 1];
  }

  std::shared_ptr<const ValueTable> values_;
  std::int64_t empty_;
  std::vector<std::string> methods_{"get", "put", "append", "read", "write", "cas"};
};

}  // namespace

std::unique_ptr<Spec> make_history_spec(std::string_view name, std::shared_ptr<const ValueTable> values) {
  if (name == "cas-register") return std::make_unique<CasRegisterSpec>();
  if (name == "kv") return std::make_unique<KvSpec>(values ? std::move(values) : std::make_shared<const ValueTable>());
  return make_spec(name);
}

std::vector<std::string> history_spec_names() {
  std::vector<std::string> v = {"cas-register", "kv"};
  for (const std::string& n : spec_names()) v.push_back(n);
  return v;
}

}  // namespace atomcheck::lin
