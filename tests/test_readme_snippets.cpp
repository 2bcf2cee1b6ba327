// README's snippets of the consumer project cannot drift: every fenced code block after a
// `<!-- snippet: PATH -->` line must be a run of consecutive lines of PATH (the whole
// file for sources), and the files scripts/test-consumer.sh builds are the ones quoted.
#include <gtest/gtest.h>

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
  std::string path;
  std::size_t readme_line = 0;  // 1-based line of the marker
  std::vector<std::string> lines;
};

std::vector<Snippet> readme_snippets() {
  std::vector<std::string> readme = read_lines(std::string(ATOMCHECK_SOURCE_DIR) + "/README.md");
  EXPECT_FALSE(readme.empty());
  const std::string marker = "<!-- snippet: ";
  std::vector<Snippet> out;
  for (std::size_t i = 0; i < readme.size(); ++i) {
    if (readme[i].rfind(marker, 0) != 0) continue;
    Snippet s;
    s.readme_line = i + 1;
    s.path = readme[i].substr(marker.size(), readme[i].find(" -->") - marker.size());
    std::size_t j = i + 1;
    EXPECT_TRUE(j < readme.size() && readme[j].rfind("```", 0) == 0)
        << "README.md:" << s.readme_line << ": the snippet marker is not followed by a code block";
    for (++j; j < readme.size() && readme[j].rfind("```", 0) != 0; ++j) s.lines.push_back(readme[j]);
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
  std::vector<Snippet> snippets = readme_snippets();
  std::set<std::string> quoted;
  for (const Snippet& s : snippets) {
    std::vector<std::string> file = read_lines(std::string(ATOMCHECK_SOURCE_DIR) + "/" + s.path);
    ASSERT_FALSE(file.empty()) << "README.md:" << s.readme_line << ": " << s.path << " is missing or empty";
    if (s.path.ends_with(".cpp"))
      EXPECT_EQ(s.lines, file) << "README.md:" << s.readme_line << ": differs from " << s.path;
    else
      EXPECT_TRUE(is_run_of(s.lines, file))
          << "README.md:" << s.readme_line << ": not a run of consecutive lines of " << s.path;
    quoted.insert(s.path);
  }
  // The recipe, the example and the CLI binary: every file a user copies is quoted.
  for (const char* path : {"tests/consumer/get-atomcheck/add_subdirectory.cmake",
                           "tests/consumer/get-atomcheck/fetchcontent.cmake",
                           "tests/consumer/get-atomcheck/find_package.cmake",
                           "tests/consumer/CMakeLists.txt", "tests/consumer/my_tests.cpp",
                           "tests/consumer/my_cli.cpp", "tests/consumer/my_programs.cpp"})
    EXPECT_TRUE(quoted.count(path)) << "README.md does not quote " << path;
}

TEST(ReadmeSnippets, RunsAreCheckedLineByLine) {
  EXPECT_TRUE(is_run_of({"b", "c"}, {"a", "b", "c"}));
  EXPECT_FALSE(is_run_of({"a", "c"}, {"a", "b", "c"}));
  EXPECT_FALSE(is_run_of({}, {"a"}));
  EXPECT_FALSE(is_run_of({"c", "d"}, {"a", "b", "c"}));
}

}  // namespace
