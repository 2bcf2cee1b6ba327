// The include rules of DESIGN.md "Layers", checked on the source tree: inside scheduler/,
// explore/ -> runtime/ -> memory/ -> search/, each folder including only itself, the
// folders after it and checkers/ and trace/; checkers/ includes only itself and trace/;
// trace/ only itself; the forwarding headers at scheduler/'s top (kept for the paths
// users include) forward and nothing else, and nothing inside the scheduler uses them.
// A planted include from a lower folder to a higher one must be reported.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The rank of a folder in the scheduler's order; -1 for one outside it.
int rank_of(const std::string& folder) {
  static const std::map<std::string, int> ranks = {{"search", 0}, {"memory", 1}, {"runtime", 2}, {"explore", 3}};
  auto it = ranks.find(folder);
  return it == ranks.end() ? -1 : it->second;
}

// The folder a root-relative path lies in: "scheduler/runtime" or "checkers", ...
std::string area_of(const fs::path& rel) {
  auto it = rel.begin();
  if (it == rel.end()) return "";
  std::string top = it->string();
  if (top != "scheduler") return top;
  ++it;
  if (it == rel.end()) return "scheduler";
  auto next = it;
  ++next;
  return next == rel.end() ? "scheduler" : "scheduler/" + it->string();  // a file at scheduler/'s top
}

bool allowed(const std::string& from, const std::string& to) {
  if (from == to) return true;
  if (from == "trace") return false;
  if (from == "checkers") return to == "trace";
  if (from.rfind("scheduler/", 0) != 0) return true;  // cli/, specs/, models/, tests/: anything
  if (to == "trace" || to == "checkers") return true;
  if (to.rfind("scheduler/", 0) != 0) return false;  // the scheduler includes no cli/, specs/, ...
  const int a = rank_of(from.substr(10)), b = rank_of(to.substr(10));
  return a >= 0 && b >= 0 && b <= a;
}

// Every quoted include of every header and source below `root` that breaks a rule, as
// "FILE: includes TARGET (FROM may not include TO)".
std::vector<std::string> violations(const fs::path& root) {
  std::vector<std::string> out;
  // The quoted name of an `#include "..."` line ("" for any other line). Plain string
  // scanning: g++ 12 warns inside std::regex under the sanitizers (-Werror).
  auto included = [](const std::string& line) -> std::string {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') return "";
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) return "";
    const std::size_t open = line.find('"', i + 7), close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close == std::string::npos || line.find_first_not_of(" \t", i + 7) != open) return "";
    return line.substr(open + 1, close - open - 1);
  };
  for (const char* top : {"scheduler", "checkers", "trace"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const fs::path& p = entry.path();
      if (!entry.is_regular_file() || (p.extension() != ".hpp" && p.extension() != ".cpp")) continue;
      const fs::path rel = fs::relative(p, root);
      const std::string from = area_of(rel);
      std::ifstream in(p);
      std::string line;
      int includes = 0;
      while (std::getline(in, line)) {
        const std::string name = included(line);
        if (name.empty()) continue;
        ++includes;
        fs::path target = (p.parent_path() / name).lexically_normal();
        if (!fs::exists(target)) target = (root / name).lexically_normal();
        if (!fs::exists(target)) continue;  // a generated or system header
        const std::string to = area_of(fs::relative(target, root));
        if (from == "scheduler") {  // a forwarding header: into a scheduler folder only
          if (to.rfind("scheduler/", 0) != 0) out.push_back(rel.string() + ": forwards outside the scheduler");
          continue;
        }
        if (from.rfind("scheduler/", 0) == 0 && to == "scheduler")
          out.push_back(rel.string() + ": includes the forwarding header " + name);
        else if (!allowed(from, to))
          out.push_back(rel.string() + ": includes " + name + " (" + from + " may not include " + to + ")");
      }
      if (from == "scheduler" && includes != 1) out.push_back(rel.string() + ": a forwarding header holds one include");
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::ostringstream o;
  for (const std::string& s : v) o << s << '\n';
  return o.str();
}

TEST(Layers, IncludesRunOneWay) {
  const std::vector<std::string> v = violations(ATOMCHECK_SOURCE_DIR);
  EXPECT_TRUE(v.empty()) << joined(v);
  // The scheduler's folders are there, each with files, so the check saw something.
  for (const char* f : {"search", "memory", "runtime", "explore"})
    EXPECT_TRUE(fs::exists(fs::path(ATOMCHECK_SOURCE_DIR) / "scheduler" / f)) << f;
}

TEST(Layers, APlantedIncludeUpwardsIsReported) {
  const fs::path root = fs::temp_directory_path() / ("atomcheck-layers-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char* f : {"scheduler/search", "scheduler/memory", "scheduler/runtime", "scheduler/explore", "trace", "checkers"})
    fs::create_directories(root / f);
  auto write = [&](const char* path, const char* text) { std::ofstream(root / path) << text; };
  write("trace/event.hpp", "#pragma once\n");
  write("checkers/checker.hpp", "#include \"../trace/event.hpp\"\n");
  write("scheduler/search/strategy.hpp", "#include \"../../trace/event.hpp\"\n");
  write("scheduler/memory/memory.hpp", "#include \"../search/strategy.hpp\"\n");
  write("scheduler/runtime/api.hpp", "#include \"../memory/memory.hpp\"\n#include \"../../checkers/checker.hpp\"\n");
  write("scheduler/explore/explore.hpp", "#include \"../runtime/api.hpp\"\n");
  write("scheduler/api.hpp", "#include \"runtime/api.hpp\"\n");
  EXPECT_TRUE(violations(root).empty()) << joined(violations(root));
  // memory/ reaching up into runtime/, search/ using a forwarding header, checkers/ into
  // the scheduler: each is one violation.
  write("scheduler/memory/memory.cpp", "#include \"scheduler/runtime/api.hpp\"\n");
  write("scheduler/search/strategy.cpp", "#include \"../api.hpp\"\n");
  write("checkers/checker.cpp", "#include \"../scheduler/search/strategy.hpp\"\n");
  const std::vector<std::string> v = violations(root);
  fs::remove_all(root);
  ASSERT_EQ(v.size(), 3u) << joined(v);
  EXPECT_NE(joined(v).find("scheduler/memory may not include scheduler/runtime"), std::string::npos) << joined(v);
  EXPECT_NE(joined(v).find("forwarding header"), std::string::npos) << joined(v);
  EXPECT_NE(joined(v).find("checkers may not include scheduler/search"), std::string::npos) << joined(v);
}

}  // namespace
