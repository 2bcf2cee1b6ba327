// libFuzzer target for the trace readers (trace/trace_io.cpp, std_format.cpp,
// jsonl_format.cpp, io_detail.hpp). One binary under two names: trace_std_fuzzer reads
// every input as RAPID's STD text, trace_jsonl_fuzzer as our JSON lines (the name it is
// run by, argv[0], says which).
//
// The readers take a path (LineSource reads it with read(2) in large blocks); there is
// no string entry point. Each input is written to a memfd, an anonymous file in memory,
// and read back through /proc/self/fd/N, so the whole reader runs as `atomcheck
// check-trace` runs it, buffer and slack included, and nothing touches a disk.
//
// Any byte string must either read to the end or raise exactly one TraceError whose
// message is one line starting with the file's name; anything else (a crash, a sanitizer
// report, another exception, a multi-line message) aborts: a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "trace/trace_io.hpp"

namespace {

int g_fd = -1;
std::string g_path;
atomcheck::TraceFormat g_format = atomcheck::TraceFormat::std_text;

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::string_view self = *argc > 0 ? (*argv)[0] : "";
  self = self.substr(self.rfind('/') == std::string_view::npos ? 0 : self.rfind('/') + 1);
  if (self.find("jsonl") != std::string_view::npos) g_format = atomcheck::TraceFormat::jsonl;
  else if (self.find("std") == std::string_view::npos) {
    std::fprintf(stderr, "trace fuzz target: run me as trace_std_fuzzer or trace_jsonl_fuzzer, not %s\n",
                 std::string(self).c_str());
    std::exit(2);
  }
  g_fd = ::memfd_create("atomcheck-fuzz-trace", MFD_CLOEXEC);
  if (g_fd < 0) die("trace fuzz target: memfd_create");
  g_path = "/proc/self/fd/" + std::to_string(g_fd);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (::ftruncate(g_fd, 0) != 0) die("trace fuzz target: ftruncate");
  for (std::size_t done = 0; done < size;) {
    ssize_t n = ::pwrite(g_fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) die("trace fuzz target: pwrite");
    done += static_cast<std::size_t>(n);
  }
  try {
    auto reader = atomcheck::open_trace(g_path, g_format);
    atomcheck::Event e;
    while (reader->next(e)) {
    }
    (void)reader->names();
  } catch (const atomcheck::TraceError& e) {
    const char* m = e.what();
    if (std::strncmp(m, g_path.c_str(), g_path.size()) != 0 || m[g_path.size()] != ':' ||
        std::strchr(m, '\n') != nullptr) {
      std::fprintf(stderr, "trace fuzz target: not a one-line '%s:LINE: ...' message: %s\n", g_path.c_str(), m);
      std::abort();
    }
  }
  return 0;
}
