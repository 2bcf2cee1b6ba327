// Spawns the atomcheck binary with posix_spawn and collects its output through files,
// which avoids pipe deadlocks on large outputs.
#include "tests/support/cli_runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace atomcheck::testing {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

CliResult run_cli_signalled(const std::vector<std::string>& args, int after_ms, int signal,
                            const std::string& stdin_text);

std::string temp_dir() {
  std::string tmpl = "/tmp/atomcheck-test-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

std::string data_path(const std::string& relative) {
  return std::string(ATOMCHECK_TEST_DATA) + "/" + relative;
}

namespace {
// Has `pid` installed a handler for SIGINT? (/proc/PID/status, SigCgt: caught signals
// as a hex mask, bit SIGINT - 1.)
bool catches_sigint(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (SIGINT - 1)) & 1u;
  return false;
}
}  // namespace

CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text) {
  return run_cli_interrupted(args, -1, stdin_text);
}

CliResult run_cli_interrupted(const std::vector<std::string>& args, int after_ms, const std::string& stdin_text) {
  return run_cli_signalled(args, after_ms, SIGINT, stdin_text);
}

CliResult run_cli_signalled(const std::vector<std::string>& args, int after_ms, int signal) {
  return run_cli_signalled(args, after_ms, signal, "");
}

CliResult run_cli_signalled(const std::vector<std::string>& args, int after_ms, int signal,
                            const std::string& stdin_text) {
  std::string dir = temp_dir();
  std::string in_path = dir + "/stdin", out_path = dir + "/stdout", err_path = dir + "/stderr";
  {
    std::ofstream in(in_path, std::ios::binary);
    in << stdin_text;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> storage;
  storage.push_back(ATOMCHECK_BIN);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, ATOMCHECK_BIN, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot spawn " + std::string(ATOMCHECK_BIN));
  int status = 0;
  if (after_ms >= 0) {
    // Ctrl-C once the command handles it (never before: that would only test the
    // default action), then give it a minute to print and exit before killing it.
    using Clock = std::chrono::steady_clock;
    auto give_up = Clock::now() + std::chrono::seconds(60);
    while (!catches_sigint(pid) && Clock::now() < give_up && waitpid(pid, &status, WNOHANG) == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
    kill(pid, signal);
    give_up = Clock::now() + std::chrono::seconds(60);
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && Clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (done == 0) {  // a hang: fail with what it printed
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
  } else {
    waitpid(pid, &status, 0);
  }
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  rmdir(dir.c_str());
  return result;
}

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  return words;
}

}  // namespace atomcheck::testing
