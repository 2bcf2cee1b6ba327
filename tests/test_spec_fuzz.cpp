// A deterministic mutation fuzz of the spec loader and interpreter that runs everywhere
// (also under the ASan+UBSan build, where the clang-only libFuzzer target of fuzz/ is not
// built): thousands of inputs mutated from tests/data/spec_corpus with a fixed seed.
// Every input must either load or raise one SpecError that is a single line
// `fuzz.json:LINE:COL: ...`; inputs that load are explored briefly, which must not crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "specs/spec.hpp"

namespace atomcheck::spec {
namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ATOMCHECK_TEST_DATA) + "/spec_corpus"))
    paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());  // directory order is not deterministic
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

// JSON fragments and spec words that make mutations reach deep into the loader.
const char* const kTokens[] = {
    "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "true", "false", "0", "-1",
    "1e9", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "0.5",
    "\"op\"", "\"load\"", "\"store\"", "\"loop\"", "\"bound\"", "\"begin\"", "\"end\"",
    "\"lock\"", "\"unlock\"", "\"spawn\"", "\"join\"", "\"if\"", "\"then\"", "\"else\"",
    "\"var\"", "\"reg\"", "\"value\"", "\"cond\"", "\"body\"", "\"threads\"", "\"ops\"",
    "\"expect\"", "\"sc\"", "\"tso\"", "\"checkers\"", "\"reachable\"", "\"always\"",
    "{\"+\": [1, 2]}", "\"x\"", "\"r0\"", "\"A.r\"", "\n", "\t", "\x01", "\xff", "\xc3\xa9"};

std::string mutate(std::string s, const std::vector<std::string>& pool, std::mt19937_64& rng) {
  auto pick = [&rng](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(pick(4));
  for (int k = 0; k < rounds; ++k) {
    std::size_t at = pick(s.size() + 1);
    switch (pick(7)) {
      case 0:  // flip a byte
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 1:  // insert a token
        s.insert(at, kTokens[pick(std::size(kTokens))]);
        break;
      case 2: {  // delete a range
        std::size_t len = 1 + pick(16);
        if (at < s.size()) s.erase(at, len);
        break;
      }
      case 3: {  // duplicate a range
        if (s.empty()) break;
        std::size_t from = pick(s.size()), len = 1 + pick(64);
        s.insert(at, s.substr(from, len));
        break;
      }
      case 4: {  // splice with another corpus file
        const std::string& o = pool[pick(pool.size())];
        std::size_t from = pick(o.size());
        s = s.substr(0, at) + o.substr(from, pick(200));
        break;
      }
      case 5:  // truncate
        s.resize(at);
        break;
      case 6: {  // replace a digit run with another number
        std::size_t d = s.find_first_of("0123456789", at);
        if (d == std::string::npos) break;
        std::size_t e = s.find_first_not_of("0123456789", d);
        const char* nums[] = {"0", "1", "2", "10000", "10001", "64", "65", "-5", "1000000"};
        s.replace(d, (e == std::string::npos ? s.size() : e) - d, nums[pick(std::size(nums))]);
        break;
      }
    }
  }
  return s;
}

TEST(SpecFuzz, MutatedInputsLoadOrFailWithOneWellFormedLine) {
  const std::vector<std::string> pool = corpus();
  ASSERT_GE(pool.size(), 20u);
  std::mt19937_64 rng(20261121);
  // `fuzz.json:LINE:COL: message` on one line (std::regex trips GCC 12's warnings
  // under ASan, so the shape is checked by hand).
  auto well_formed = [](const std::string& m) {
    const std::string head = "fuzz.json:";
    if (m.rfind(head, 0) != 0 || m.find('\n') != std::string::npos) return false;
    std::size_t i = head.size();
    for (int field = 0; field < 2; ++field) {
      std::size_t start = i;
      while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
      if (i == start || i >= m.size() || m[i] != ':') return false;
      ++i;
    }
    return i + 1 < m.size() && m[i] == ' ';
  };
  int loaded = 0, rejected = 0, explored = 0;
  // Fewer iterations under the sanitizers, where each costs ~10x more.
  const int iterations = std::getenv("ATOMCHECK_SANITIZED") ? 8000 : 20000;
  for (int i = 0; i < iterations; ++i) {
    std::string input = mutate(pool[static_cast<std::size_t>(rng() % pool.size())], pool, rng);
    try {
      Spec s = parse_spec(input, "fuzz.json");
      ++loaded;
      if (explored < 1000) {
        // Briefly: the point is that nothing crashes, not what the expectations say.
        RunOptions o;
        o.explore.max_executions = 8;
        o.explore.max_steps = 2000;
        o.explore.time_limit_seconds = 2;
        RunReport r = run_spec(s, o);
        std::string text = format_report(s, r);
        EXPECT_FALSE(text.empty());
        ++explored;
      }
    } catch (const SpecError& e) {
      ++rejected;
      ASSERT_TRUE(well_formed(e.what())) << "input #" << i << ": " << e.what();
    }
  }
  // The mutations reach both sides: some inputs still load, most are rejected.
  EXPECT_GT(loaded, iterations / 100);
  EXPECT_GT(rejected, iterations / 2);
  RecordProperty("loaded", loaded);
  RecordProperty("rejected", rejected);
}

}  // namespace
}  // namespace atomcheck::spec
