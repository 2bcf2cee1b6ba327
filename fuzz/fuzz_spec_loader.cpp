// libFuzzer target for the JSON spec loader: any byte string must either load or raise
// exactly one SpecError whose message is one line `FILE:LINE:COL: ...`; anything else
// (a crash, a sanitizer report, another exception, a multi-line message) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "specs/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    atomcheck::spec::Spec s = atomcheck::spec::parse_spec(text, "fuzz.json");
    (void)s;
  } catch (const atomcheck::spec::SpecError& e) {
    const char* m = e.what();
    if (std::strncmp(m, "fuzz.json:", 10) != 0 || std::strchr(m, '\n') != nullptr) std::abort();
  }
  return 0;
}
