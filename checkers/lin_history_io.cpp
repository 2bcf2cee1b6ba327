// Readers of recorded histories: etcd logs, EDN, JSONL (see lin_history_io.hpp).
#include "checkers/lin_history_io.hpp"

#include <cctype>
#include <charconv>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include <fmt/core.h>

namespace atomcheck::lin {

namespace {

using nlohmann::json;

// EDN, the subset histories use, read into JSON: maps (keyword keys lose their colon),
// vectors, lists and sets as arrays, keywords and symbols as strings without the colon,
// strings, integers (an N suffix dropped), floats, nil, booleans; tags (#inst ...) and
// #_ discards are read past, comments and commas are blank.
class EdnReader {
 public:
  EdnReader(std::string_view s, std::uint32_t first_line = 1) : s_(s), line_(first_line) {}

  bool at_end() {
    skip_blank();
    return i_ >= s_.size();
  }
  std::uint32_t line() const { return line_; }
  char peek() {
    skip_blank();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++i_;
  }

  json value() {
    skip_blank();
    if (i_ >= s_.size()) fail("the history ends inside a value (truncated?)");
    const char c = s_[i_];
    if (c == '{') return map();
    if (c == '[') return seq(']');
    if (c == '(') return seq(')');
    if (c == '"') return string();
    if (c == '#') {
      ++i_;
      if (i_ < s_.size() && s_[i_] == '{') return seq('}');
      if (i_ < s_.size() && s_[i_] == '_') {
        ++i_;
        value();
        return value();
      }
      token();  // the tag
      return value();
    }
    if (c == '\\') {
      ++i_;
      return std::string(1, i_ < s_.size() ? s_[i_++] : ' ');
    }
    if (c == '}' || c == ']' || c == ')') fail(fmt::format("unexpected '{}'", c));
    const std::string_view t = token();
    if (t == "nil") return nullptr;
    if (t == "true") return true;
    if (t == "false") return false;
    if (t[0] == ':') return std::string(t.substr(1));
    if (std::isdigit(static_cast<unsigned char>(t[0])) || ((t[0] == '-' || t[0] == '+') && t.size() > 1)) return number(t);
    return std::string(t);
  }
  // Seen when a map is read: the line its key appears on, for errors naming a field.
  std::unordered_map<std::string, std::uint32_t> field_lines;

  [[noreturn]] void fail(const std::string& what) const { throw HistoryError(line_, "", what); }

 private:
  void skip_blank() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (c == ';') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
        ++i_;
      } else {
        break;
      }
    }
  }
  std::string_view token() {
    const std::size_t start = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '{' || c == '}' || c == '[' || c == ']' ||
          c == '(' || c == ')' || c == '"' || c == ';')
        break;
      ++i_;
    }
    if (i_ == start) fail(fmt::format("unexpected '{}'", s_[i_]));
    return s_.substr(start, i_ - start);
  }
  json number(std::string_view t) {
    std::string_view d = t;
    if (d.back() == 'N' || d.back() == 'M') d.remove_suffix(1);
    if (!d.empty() && d[0] == '+') d.remove_prefix(1);
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (ec == std::errc() && end == d.data() + d.size()) return v;
    try {
      return json::parse(std::string(d));  // floats, big integers
    } catch (const json::exception&) {
      fail(fmt::format("'{}' is not a number", t));
    }
  }
  json string() {
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("the history ends inside a string (truncated?)");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (c == '\n') ++line_;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("the history ends inside a string (truncated?)");
      const char e = s_[i_++];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
    }
  }
  json seq(char close) {
    ++i_;
    json out = json::array();
    while (peek() != close) {
      if (i_ >= s_.size()) fail("the history ends inside a collection (truncated?)");
      out.push_back(value());
    }
    ++i_;
    return out;
  }
  json map() {
    ++i_;
    json out = json::object();
    field_lines.clear();
    while (peek() != '}') {
      if (i_ >= s_.size()) fail("the history ends inside a map (truncated?)");
      const std::uint32_t at = line_;
      json k = value();
      const std::string key = k.is_string() ? k.get<std::string>() : k.dump();
      if (peek() == '}') fail(fmt::format("field :{} has no value", key));
      std::unordered_map<std::string, std::uint32_t> outer;
      outer.swap(field_lines);
      json v = value();
      outer.swap(field_lines);
      field_lines[key] = at;
      out[key] = std::move(v);
    }
    ++i_;
    return out;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::uint32_t line_;
};

// Builds the operations from events, whatever the format: matches each completion to its
// client's open invocation.
class Recorder {
 public:
  explicit Recorder(RecordedHistory& h) : h_(h) {}

  std::uint32_t client(const json& id) {
    if (id.is_number_integer()) {  // the usual case, without a string
      auto it = int_ids_.find(id.get<std::int64_t>());
      if (it != int_ids_.end()) return it->second;
      const std::uint32_t c = client_by_text(id.dump());
      int_ids_.emplace(id.get<std::int64_t>(), c);
      return c;
    }
    return client_by_text(id.is_string() ? id.get<std::string>() : id.dump());
  }
  std::uint32_t client_by_text(const std::string& text) {
    auto [it, fresh] = client_ids_.emplace(text, static_cast<std::uint32_t>(h_.clients.size()));
    if (fresh) {
      h_.clients.push_back(text);
      open_.push_back(kClosed);
    }
    return it->second;
  }
  void invoke(std::uint32_t c, std::uint32_t line, RecordedOp op) {
    if (open_[c] != kClosed)
      throw HistoryError(line, "process",
                         fmt::format("client {} invokes while its operation of line {} is open", h_.clients[c],
                                     h_.ops[open_[c]].call_line));
    op.client = c;
    op.call = h_.events++;
    op.call_line = line;
    op.status = OpStatus::pending;
    open_[c] = static_cast<std::uint32_t>(h_.ops.size());
    h_.ops.push_back(std::move(op));
  }
  // The open operation of client c, which completes now.
  RecordedOp& complete(std::uint32_t c, std::uint32_t line, OpStatus status, const std::string& method) {
    if (open_[c] == kClosed)
      throw HistoryError(line, "process", fmt::format("client {} completes an operation it never invoked", h_.clients[c]));
    RecordedOp& op = h_.ops[open_[c]];
    if (!method.empty() && method != op.method)
      throw HistoryError(line, "f", fmt::format("completes {} but client {} invoked {} on line {}", method, h_.clients[c],
                                                op.method, op.call_line));
    open_[c] = kClosed;
    op.status = status;
    op.ret_line = line;
    op.ret = status == OpStatus::ok ? h_.events : kPending;
    ++h_.events;
    return op;
  }

 private:
  static constexpr std::uint32_t kClosed = ~std::uint32_t{0};
  RecordedHistory& h_;
  std::unordered_map<std::string, std::uint32_t> client_ids_;
  std::unordered_map<std::int64_t, std::uint32_t> int_ids_;
  std::vector<std::uint32_t> open_;
};

// A Jepsen :value as arguments: nil none, a vector its elements (cas [from to]), else one.
std::vector<std::int64_t> args_of(const json& v, ValueTable& values) {
  std::vector<std::int64_t> out;
  if (v.is_null()) return out;
  if (v.is_array()) {
    for (const json& x : v) out.push_back(values.intern(x));
  } else {
    out.push_back(values.intern(v));
  }
  return out;
}

std::optional<OpStatus> jepsen_status(const std::string& type) {
  if (type == "ok") return OpStatus::ok;
  if (type == "fail") return OpStatus::failed;
  if (type == "info") return OpStatus::unknown;
  return std::nullopt;
}

// One Jepsen event (EDN map or etcd line): process, type, f, value, maybe key.
void jepsen_event(Recorder& rec, RecordedHistory& h, const json& m, std::uint32_t line, bool etcd,
                  const std::unordered_map<std::string, std::uint32_t>* lines) {
  auto line_of = [&](const char* field) {
    if (!lines) return line;
    auto it = lines->find(field);
    return it == lines->end() ? line : it->second;
  };
  auto need = [&](const char* field) -> const json& {
    if (!m.contains(field)) throw HistoryError(line, field, fmt::format("the event has no :{}", field));
    return m[field];
  };
  const json& process = need("process");
  if (!process.is_number_integer()) return;  // the nemesis and other non-clients
  const json& type = need("type");
  if (!type.is_string()) throw HistoryError(line_of("type"), "type", "is not a keyword");
  const json& f = need("f");
  if (!f.is_string()) throw HistoryError(line_of("f"), "f", "is not a keyword");
  const std::string t = type.get<std::string>(), method = f.get<std::string>();
  const json value = m.contains("value") ? m["value"] : json(nullptr);
  const std::uint32_t c = rec.client(process);
  if (t == "invoke") {
    RecordedOp op;
    op.method = method;
    if (m.contains("key")) {
      op.keyed = true;
      op.key = h.values->intern(m["key"]);
    }
    op.args = args_of(value, *h.values);
    rec.invoke(c, line, std::move(op));
    return;
  }
  std::optional<OpStatus> s = jepsen_status(t);
  if (!s) throw HistoryError(line_of("type"), "type", fmt::format("unknown event type :{}", t));
  // etcd's logs (as Porcupine reads them): a cas that did not swap is a :fail that took
  // effect with the answer false, a :fail read timed out (result unknown).
  if (etcd && *s == OpStatus::failed) s = method == "cas" ? OpStatus::ok : OpStatus::unknown;
  RecordedOp& op = rec.complete(c, line, *s, method);
  if (op.status != OpStatus::ok) return;
  // A read-like operation (invoked with no value) returns one; the others answer that they
  // took effect (a cas: true; etcd's :fail cas: false).
  if (op.args.empty())
    op.result = h.values->intern(value);
  else
    op.result = t == "ok" ? 1 : 0;
}

// Calls f(line number, line) for each line of `text` that is not blank.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::uint32_t line = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    const std::string_view l = text.substr(at, nl == std::string_view::npos ? text.size() - at : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line;
    if (l.find_first_not_of(" \t\r") != std::string_view::npos) f(line, l);
  }
}

void read_etcd(std::string_view text, RecordedHistory& h) {
  Recorder rec(h);
  for_each_line(text, [&](std::uint32_t line, std::string_view l) {
    const std::size_t mark = l.find("jepsen.util - ");
    if (mark == std::string_view::npos) {
      if (l.rfind("INFO", 0) == 0 || l.rfind("WARN", 0) == 0 || l.rfind("DEBUG", 0) == 0 || l.rfind("ERROR", 0) == 0)
        return;  // another logger's line
      throw HistoryError(line, "", "not a line of a Jepsen log (INFO jepsen.util - PROCESS TYPE F VALUE)");
    }
    EdnReader r(l.substr(mark + 14), line);
    json m = json::object();
    static const char* const fields[] = {"process", "type", "f", "value"};
    for (const char* field : fields) {
      if (r.at_end()) {
        if (std::string_view(field) == "value") break;
        throw HistoryError(line, field, fmt::format("the line ends before the {} (truncated?)", field));
      }
      m[field] = r.value();
    }
    if (!r.at_end()) throw HistoryError(line, "value", "more after the value");
    if (!m["process"].is_number_integer()) throw HistoryError(line, "process", "is not a number");
    jepsen_event(rec, h, m, line, true, nullptr);
  });
}

void read_edn(std::string_view text, RecordedHistory& h) {
  Recorder rec(h);
  EdnReader r(text);
  bool wrapped = false;
  if (r.peek() == '[' || r.peek() == '(') {
    wrapped = true;
    r.expect(r.peek());
  }
  while (true) {
    if (r.at_end()) {
      if (wrapped) r.fail("the history ends before its closing bracket (truncated?)");
      break;
    }
    if (wrapped && (r.peek() == ']' || r.peek() == ')')) {
      r.expect(r.peek());
      if (!r.at_end()) r.fail("more after the history's closing bracket");
      break;
    }
    const char c = r.peek();
    const std::uint32_t line = r.line();
    if (c != '{') r.fail(fmt::format("expected an event {{:process ..}}, found '{}'", c));
    json m = r.value();
    jepsen_event(rec, h, m, line, false, &r.field_lines);
  }
}

// The fields of one JSONL event (docs/check-history.md), values interned as read;
// `has` says which were there.
struct JsonlEvent {
  json client, type, f;
  std::int64_t key = kNone, result = kNone;
  std::vector<std::int64_t> args;
  bool has_client = false, has_type = false, has_f = false, has_key = false, has_args = false;
  bool args_not_array = false;
  std::string unknown;  // the first field that is none of these (an error: a typo loses a result)

  // A top-level field; values (key, result) interned.
  void set(const std::string& name, json v, ValueTable& values) {
    if (name == "client") client = std::move(v), has_client = true;
    else if (name == "type") type = std::move(v), has_type = true;
    else if (name == "f") f = std::move(v), has_f = true;
    else if (name == "key") key = values.intern(v), has_key = true;
    else if (name == "result") result = values.intern(v);
    else if (name == "args") {
      has_args = true;
      args_not_array = !v.is_array();
      if (v.is_array())
        for (const json& a : v) args.push_back(values.intern(a));
    } else if (name != "time" && name != "index" && name.rfind('_', 0) != 0 && unknown.empty()) {
      unknown = name;
    }
  }
  // The same for a string, interned without a document around it.
  void set_string(const std::string& name, std::string&& v, ValueTable& values) {
    if (name == "key") {
      key = values.intern_string(std::move(v));
      has_key = true;
    } else if (name == "result") {
      result = values.intern_string(std::move(v));
    } else {
      set(name, json(std::move(v)), values);
    }
  }
};

// Reads an event's top-level fields without building a document (most events are flat);
// `nested` when a value is an object or an array other than the args' own, which the
// caller then reads as a document.
class JsonlSax final : public nlohmann::json_sax<json> {
 public:
  JsonlSax(JsonlEvent& e, ValueTable& values) : e_(e), values_(values) {}
  bool nested = false, object = false;
  std::string error;

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t&) override { return put(v); }
  bool string(string_t& v) override {
    if (depth_ == 1) {
      e_.set_string(name_, std::move(v), values_);
    } else if (in_args_ && depth_ == 2) {
      e_.args.push_back(values_.intern_string(std::move(v)));
    }
    return true;
  }
  bool binary(binary_t&) override { return put(nullptr); }
  bool start_object(std::size_t) override {
    if (depth_ == 0) object = true;
    if (depth_ > 0) nested = true;
    ++depth_;
    return !nested;
  }
  bool key(string_t& k) override {
    name_ = std::move(k);
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && name_ == "args") {
      in_args_ = true;
      e_.has_args = true;
    } else {
      nested = true;
    }
    ++depth_;
    return !nested;
  }
  bool end_array() override {
    --depth_;
    in_args_ = false;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    error = ex.what();
    return false;
  }

 private:
  bool put(json v) {
    if (depth_ == 1) {
      e_.set(name_, std::move(v), values_);
    } else if (in_args_ && depth_ == 2) {
      e_.args.push_back(values_.intern(v));
    }
    return true;
  }
  JsonlEvent& e_;
  ValueTable& values_;
  int depth_ = 0;
  bool in_args_ = false;
  std::string name_;
};

void read_jsonl(std::string_view text, RecordedHistory& h) {
  Recorder rec(h);
  for_each_line(text, [&](std::uint32_t line, std::string_view l) {
    JsonlEvent m;
    JsonlSax sax(m, *h.values);
    const bool parsed = json::sax_parse(l.begin(), l.end(), &sax);
    if (!parsed && !sax.nested) throw HistoryError(line, "", fmt::format("not JSON (truncated?): {}", sax.error));
    if (sax.nested) {
      json doc;
      try {
        doc = json::parse(l);
      } catch (const json::parse_error& e) {
        throw HistoryError(line, "", fmt::format("not JSON (truncated?): {}", e.what()));
      }
      if (!doc.is_object()) throw HistoryError(line, "", "not a JSON object");
      m = JsonlEvent{};
      for (auto& [k, v] : doc.items()) m.set(k, v, *h.values);
    } else if (!sax.object) {
      throw HistoryError(line, "", "not a JSON object");
    }
    if (!m.unknown.empty())
      throw HistoryError(line, m.unknown,
                         m.unknown == "value"
                             ? "not a field of JSONL events: an invocation's arguments are \"args\" (an array), a "
                               "completion's result \"result\""
                             : "not a field of JSONL events (client, type, f, key, args, result; time, index and "
                               "fields beginning with _ are ignored)");
    if (!m.has_client) throw HistoryError(line, "client", "the event has no \"client\"");
    if (!m.client.is_string() && !m.client.is_number_integer())
      throw HistoryError(line, "client", "is neither a string nor an integer");
    if (!m.has_type) throw HistoryError(line, "type", "the event has no \"type\"");
    if (!m.type.is_string()) throw HistoryError(line, "type", "is not a string");
    const std::string& t = m.type.get_ref<const std::string&>();
    const std::uint32_t c = rec.client(m.client);
    std::string method;
    if (m.has_f) {
      if (!m.f.is_string()) throw HistoryError(line, "f", "is not a string");
      method = m.f.get<std::string>();
    }
    if (t == "invoke") {
      if (method.empty()) throw HistoryError(line, "f", "the event has no \"f\"");
      RecordedOp op;
      op.method = std::move(method);
      if (m.has_key) {
        op.keyed = true;
        op.key = m.key;
      }
      if (m.args_not_array) throw HistoryError(line, "args", "is not an array");
      op.args = std::move(m.args);
      rec.invoke(c, line, std::move(op));
      return;
    }
    std::optional<OpStatus> s = jepsen_status(t);
    if (!s) throw HistoryError(line, "type", fmt::format("unknown event type \"{}\" (invoke, ok, fail, info)", t));
    RecordedOp& op = rec.complete(c, line, *s, method);
    if (op.status == OpStatus::ok) op.result = m.result;
  });
}

}  // namespace

std::optional<HistoryFormat> history_format_from_name(std::string_view name) {
  if (name == "etcd") return HistoryFormat::etcd;
  if (name == "edn" || name == "kv") return HistoryFormat::edn;
  if (name == "jsonl") return HistoryFormat::jsonl;
  return std::nullopt;
}

const char* history_format_name(HistoryFormat f) {
  switch (f) {
    case HistoryFormat::etcd: return "etcd";
    case HistoryFormat::edn: return "edn";
    default: return "jsonl";
  }
}

std::optional<HistoryFormat> detect_history_format(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    std::string_view l = text.substr(at, nl == std::string_view::npos ? text.size() - at : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::size_t first = l.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || l[first] == ';') continue;
    l.remove_prefix(first);
    if (l.find("jepsen.util") != std::string_view::npos) return HistoryFormat::etcd;
    if (l[0] == '[' || l[0] == '(') return HistoryFormat::edn;
    if (l[0] == '{') {
      const std::size_t next = l.find_first_not_of(" \t", 1);
      if (next == std::string_view::npos || l[next] == ':') return HistoryFormat::edn;
      if (l[next] == '"') return HistoryFormat::jsonl;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

RecordedHistory read_history(std::string_view text, std::optional<HistoryFormat> format) {
  RecordedHistory h;
  if (!format) format = detect_history_format(text);
  if (!format) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) throw HistoryError(0, "", "the history is empty");
    throw HistoryError(0, "", "not a history this reads (an etcd log, EDN or JSONL); name one with --format");
  }
  h.format = *format;
  switch (*format) {
    case HistoryFormat::etcd: read_etcd(text, h); break;
    case HistoryFormat::edn: read_edn(text, h); break;
    case HistoryFormat::jsonl: read_jsonl(text, h); break;
  }
  return h;
}

RecordedHistory read_history(std::istream& in, std::optional<HistoryFormat> format) {
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = std::move(all).str();
  return read_history(std::string_view(text), format);
}

std::string default_history_spec(const RecordedHistory& h) {
  if (h.format == HistoryFormat::etcd) return "cas-register";
  for (const RecordedOp& op : h.ops)
    if (op.keyed) return "kv";
  return "cas-register";
}

BoundHistory bind_history(const RecordedHistory& h, const Spec& spec) {
  BoundHistory b;
  const std::vector<std::string>& methods = spec.methods();
  std::unordered_map<std::string, std::uint32_t> method_of;
  for (std::uint32_t m = 0; m < methods.size(); ++m) method_of.emplace(methods[m], m);
  for (std::uint32_t i = 0; i < h.ops.size(); ++i) {
    const RecordedOp& r = h.ops[i];
    if (r.status == OpStatus::failed) continue;
    auto it = method_of.find(r.method);
    if (it == method_of.end()) {
      std::string known;
      for (const std::string& m : methods) known += (known.empty() ? "" : ", ") + m;
      throw HistoryError(r.call_line, "f",
                         fmt::format("unknown operation '{}' for the {} specification ({})", r.method, spec.name(), known));
    }
    std::vector<std::int64_t> args;
    if (r.keyed) args.push_back(r.key);
    args.insert(args.end(), r.args.begin(), r.args.end());
    if (args.size() > 3)
      throw HistoryError(r.call_line, "value", fmt::format("{} has {} arguments, at most 3 are read", r.method, args.size()));
    Operation op;
    op.thread = r.client;
    op.method = it->second;
    if (!args.empty()) op.arg = args[0];
    if (args.size() > 1) op.arg2 = args[1];
    if (args.size() > 2) op.arg3 = args[2];
    op.call = r.call;
    if (r.status == OpStatus::ok) {
      op.ret = r.ret;
      op.result = r.result;
    }
    b.history.push_back(op);
    b.recorded.push_back(i);
  }
  return b;
}

std::string describe_op(const RecordedOp& op, const ValueTable& values) {
  std::string args;
  if (op.keyed) args = values.show(op.key);
  for (std::int64_t a : op.args) args += (args.empty() ? "" : ", ") + values.show(a);
  std::string out = fmt::format("{}({})", op.method, args);
  switch (op.status) {
    case OpStatus::ok:
      // A read-like operation's value; a cas's answer (stored as 1/0); another's result
      // when the history gave one.
      if (op.args.empty()) {
        out += " -> " + values.show(op.result);
      } else if (op.method == "cas") {
        out += op.result == 0 ? " -> false" : " -> true";
      } else if (op.result != kNone && op.result != 1) {
        out += " -> " + values.show(op.result);
      }
      break;
    case OpStatus::failed: out += " failed"; break;
    case OpStatus::unknown: out += " -> ?"; break;
    case OpStatus::pending: out += " (never returned)"; break;
  }
  return out;
}

}  // namespace atomcheck::lin
