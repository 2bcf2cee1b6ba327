// The README's and docs/'s snippets of the consumer project cannot drift: every fenced
// code block after a `<!-- snippet: PATH -->` line, in README.md or any docs/*.md, must be a
// run of consecutive lines of PATH (the whole file for sources), and every block after an
// `<!-- excerpt: PATH -->` line a run of consecutive lines of PATH (a part of a test the
// guide shows). The files scripts/test-consumer.sh builds are the ones quoted: the README
// quotes the quick start (FetchContent, the CMake lines, the test), and README or docs
// quote every file a user copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Snippet {
  std::string doc;   // README.md or docs/NAME.md
  std::string path;
  bool excerpt = false;      // `<!-- excerpt: -->`: a run of lines even of a source file
  std::size_t doc_line = 0;  // 1-based line of the marker
  std::vector<std::string> lines;
  std::string where() const { return doc + ":" + std::to_string(doc_line); }
};

// The guide's files: README.md and every docs/*.md, in name order.
std::vector<std::string> guide_files() {
  std::vector<std::string> docs;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATOMCHECK_SOURCE_DIR) + "/docs"))
    if (entry.path().extension() == ".md") docs.push_back("docs/" + entry.path().filename().string());
  std::sort(docs.begin(), docs.end());
  docs.insert(docs.begin(), "README.md");
  return docs;
}

std::vector<Snippet> snippets_of(const std::string& doc) {
  std::vector<std::string> text = read_lines(std::string(ATOMCHECK_SOURCE_DIR) + "/" + doc);
  EXPECT_FALSE(text.empty()) << doc;
  std::vector<Snippet> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    Snippet s;
    std::string marker;
    for (const char* m : {"<!-- snippet: ", "<!-- excerpt: "})
      if (text[i].rfind(m, 0) == 0) marker = m;
    if (marker.empty()) continue;
    s.doc = doc;
    s.excerpt = marker == "<!-- excerpt: ";
    s.doc_line = i + 1;
    s.path = text[i].substr(marker.size(), text[i].find(" -->") - marker.size());
    std::size_t j = i + 1;
    EXPECT_TRUE(j < text.size() && text[j].rfind("```", 0) == 0)
        << s.where() << ": the snippet marker is not followed by a code block";
    for (++j; j < text.size() && text[j].rfind("```", 0) != 0; ++j) s.lines.push_back(text[j]);
    out.push_back(s);
  }
  return out;
}

bool is_run_of(const std::vector<std::string>& part, const std::vector<std::string>& whole) {
  if (part.empty() || part.size() > whole.size()) return false;
  for (std::size_t start = 0; start + part.size() <= whole.size(); ++start) {
    std::size_t k = 0;
    while (k < part.size() && part[k] == whole[start + k]) ++k;
    if (k == part.size()) return true;
  }
  return false;
}

TEST(ReadmeSnippets, EachSnippetIsItsFile) {
  std::set<std::string> in_readme, anywhere;
  std::size_t count = 0;
  for (const std::string& doc : guide_files()) {
    for (const Snippet& s : snippets_of(doc)) {
      ++count;
      std::vector<std::string> file = read_lines(std::string(ATOMCHECK_SOURCE_DIR) + "/" + s.path);
      ASSERT_FALSE(file.empty()) << s.where() << ": " << s.path << " is missing or empty";
      if (s.path.ends_with(".cpp") && !s.excerpt)
        EXPECT_EQ(s.lines, file) << s.where() << ": differs from " << s.path;
      else
        EXPECT_TRUE(is_run_of(s.lines, file))
            << s.where() << ": not a run of consecutive lines of " << s.path;
      if (s.excerpt) continue;
      anywhere.insert(s.path);
      if (doc == "README.md") in_readme.insert(s.path);
    }
  }
  EXPECT_GT(count, 0u);
  // The quick start: the recipe a user copies first, the CMake lines and the example test.
  for (const char* path : {"tests/consumer/get-atomcheck/fetchcontent.cmake",
                           "tests/consumer/CMakeLists.txt", "tests/consumer/my_tests.cpp"})
    EXPECT_TRUE(in_readme.count(path)) << "README.md does not quote " << path;
  // The other recipes and the CLI binary: every file a user copies is quoted somewhere.
  for (const char* path : {"tests/consumer/get-atomcheck/add_subdirectory.cmake",
                           "tests/consumer/get-atomcheck/fetchcontent.cmake",
                           "tests/consumer/get-atomcheck/find_package.cmake",
                           "tests/consumer/CMakeLists.txt", "tests/consumer/my_tests.cpp",
                           "tests/consumer/my_cli.cpp", "tests/consumer/my_programs.cpp",
                           "tests/consumer/my_counter.hpp", "tests/consumer/my_production.cpp",
                           "tests/consumer/my_counter_test.cpp"})
    EXPECT_TRUE(anywhere.count(path)) << "neither README.md nor docs/ quotes " << path;
}

// Every relative link of the guide (README.md and docs/*.md, outside code blocks) names a
// file that exists.
TEST(ReadmeGuide, LinksResolve) {
  namespace fs = std::filesystem;
  const fs::path root(ATOMCHECK_SOURCE_DIR);
  std::size_t links = 0;
  for (const std::string& doc : guide_files()) {
    std::vector<std::string> text = read_lines((root / doc).string());
    bool code = false;  // inside a fenced block, `[](int x)` is a lambda, not a link
    for (std::size_t n = 0; n < text.size(); ++n) {
      const std::string& line = text[n];
      if (line.rfind("```", 0) == 0) code = !code;
      if (code) continue;
      for (std::size_t at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) {
        std::size_t end = line.find(')', at + 2);
        if (end == std::string::npos) continue;
        std::string target = line.substr(at + 2, end - at - 2);
        if (target.find("://") != std::string::npos || target.empty() || target[0] == '#') continue;
        target = target.substr(0, target.find('#'));
        ++links;
        EXPECT_TRUE(fs::exists((root / doc).parent_path() / target))
            << doc << ":" << n + 1 << ": link to a missing file: " << target;
      }
    }
  }
  EXPECT_GT(links, 10u);
}

// The README is a user's guide: at most 500 lines, the two commands and what is and is
// not modelled on its first screen, no talk of the machine it was developed on; every
// docs/ page opens with its title and a one-line statement of its topic, and the README
// links each page.
TEST(ReadmeGuide, ReadmeIsAUsersGuide) {
  std::vector<std::string> readme = read_lines(std::string(ATOMCHECK_SOURCE_DIR) + "/README.md");
  EXPECT_LE(readme.size(), 500u);
  std::string first_screen, all;
  for (std::size_t i = 0; i < readme.size(); ++i) {
    if (i < 40) first_screen += readme[i] + "\n";
    all += readme[i] + "\n";
  }
  for (const char* needed : {"bash scripts/demo.sh", "bash scripts/test.sh", "(SC)", "x86-TSO",
                             "not yet", "RC11", "data-race", "linearizability", "MPI"})
    EXPECT_NE(first_screen.find(needed), std::string::npos) << "the README's first 40 lines lack " << needed;
  for (const std::string& doc : guide_files()) {
    std::vector<std::string> text = read_lines(std::string(ATOMCHECK_SOURCE_DIR) + "/" + doc);
    std::string whole;
    for (const std::string& line : text) whole += line + "\n";
    for (const char* talk : {"this VM", "this machine", "this session", "development machine",
                             "on this 2-core", "this round"})
      EXPECT_EQ(whole.find(talk), std::string::npos) << doc << " says \"" << talk << "\"";
    if (doc == "README.md") continue;
    ASSERT_GE(text.size(), 3u) << doc;
    EXPECT_TRUE(text[0].rfind("# ", 0) == 0) << doc << ": no title on line 1";
    EXPECT_TRUE(text[1].empty() && !text[2].empty() && text.size() > 3 && text[3].empty())
        << doc << ": line 3 is not a one-line statement of the topic";
    EXPECT_NE(all.find("](" + doc + ")"), std::string::npos) << "the README does not link " << doc;
  }
}

TEST(ReadmeSnippets, RunsAreCheckedLineByLine) {
  EXPECT_TRUE(is_run_of({"b", "c"}, {"a", "b", "c"}));
  EXPECT_FALSE(is_run_of({"a", "c"}, {"a", "b", "c"}));
  EXPECT_FALSE(is_run_of({}, {"a"}));
  EXPECT_FALSE(is_run_of({"c", "d"}, {"a", "b", "c"}));
}

}  // namespace
