// The scheduler functions that the runner half of specs/litmus*.cpp calls (litmus_program,
// run_litmus, format_herd, ...), defined so the litmus fuzz targets link without the
// scheduler, which clang 14 cannot build (fibers, std::source_location; see
// clang14_source_location.hpp). The parsers call none of them: each aborts, so a parser
// that ever reached one would be reported as a crash, not run on a fake. When
// specs/litmus*.cpp starts calling another scheduler function, the link of the litmus
// fuzz targets fails naming it: add it here the same way.
#include <cstdio>
#include <cstdlib>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"

namespace {
[[noreturn]] void not_in_fuzzer(const char* what) {
  std::fprintf(stderr, "litmus fuzz target: the parser called %s, which the fuzz target does not link\n", what);
  std::abort();
}
}  // namespace

namespace atomcheck {

namespace detail {
Handle create_object(ObjKind, std::int64_t, std::string_view, const CallSite&, std::uintptr_t) { not_in_fuzzer("create_object"); }
std::int64_t op_load(const Handle&, std::memory_order, const CallSite&) { not_in_fuzzer("op_load"); }
void op_store(const Handle&, std::int64_t, std::memory_order, const CallSite&) { not_in_fuzzer("op_store"); }
void op_unsynchronised(const Handle&) { not_in_fuzzer("op_unsynchronised"); }
RmwResult op_rmw(const Handle&, RmwFn, std::memory_order, const CallSite&) { not_in_fuzzer("op_rmw"); }
void op_fence(std::memory_order, const CallSite&) { not_in_fuzzer("op_fence"); }
ThreadId op_spawn(void (*)(void*), void*, const CallSite&) { not_in_fuzzer("op_spawn"); }
void op_join(ThreadId, const CallSite&) { not_in_fuzzer("op_join"); }
void op_thread_dropped(ThreadId) { not_in_fuzzer("op_thread_dropped"); }
void op_outcome(std::string_view, std::int64_t) { not_in_fuzzer("op_outcome"); }
void op_check_failed(std::string_view, const std::source_location&) { not_in_fuzzer("op_check_failed"); }
}  // namespace detail

ExploreResult explore(const Program&, const ExploreOptions&, const std::function<void(const ExecutionView&)>&) {
  not_in_fuzzer("explore");
}
SearchEnd search_end(const ExploreResult&) { not_in_fuzzer("search_end"); }
std::string_view search_end_name(SearchEnd) { not_in_fuzzer("search_end_name"); }
std::string search_end_text(const ExploreResult&) { not_in_fuzzer("search_end_text"); }
std::string_view equivalence_name(Equivalence) { not_in_fuzzer("equivalence_name"); }
std::string_view strategy_name(StrategyKind) { not_in_fuzzer("strategy_name"); }
std::string_view memory_model_name(MemoryModelKind) { not_in_fuzzer("memory_model_name"); }

}  // namespace atomcheck
