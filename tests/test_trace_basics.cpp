// The vocabulary's small pieces: op names round-trip, name interning is dense, and the
// trace of an execution drops exactly its commits.
#include <gtest/gtest.h>

#include "trace/trace.hpp"

namespace atomcheck {
namespace {

TEST(OpNames, RoundTrip) {
  for (int i = 0; i < kOpCount; ++i) {
    Op op = static_cast<Op>(i), back = Op::read;
    ASSERT_TRUE(parse_op(op_name(op), back)) << op_name(op);
    EXPECT_EQ(op, back);
  }
  Op ignored;
  EXPECT_FALSE(parse_op("store", ignored));
}

TEST(NameTable, InternsDensely) {
  NameTable t;
  EXPECT_EQ(t.intern("x"), 0u);
  EXPECT_EQ(t.intern("y"), 1u);
  EXPECT_EQ(t.intern("x"), 0u);
  EXPECT_EQ(t.find("y"), 1u);
  EXPECT_EQ(t.find("z"), kNoId);
  EXPECT_EQ(t.name(1), "y");
}

TEST(DropCommits, KeepsEverythingElseInOrder) {
  Trace eta;
  eta.events = {{Op::write, false, 0, 0, 1}, {Op::read, false, 1, 0, 0},
                {Op::commit, false, 0, 0, 1, 0, 0}, {Op::read, true, 0, 0, 1}};
  Trace tau = drop_commits(eta);
  ASSERT_EQ(tau.size(), 3u);
  EXPECT_EQ(tau.events[0].op, Op::write);
  EXPECT_EQ(tau.events[1].op, Op::read);
  EXPECT_TRUE(tau.events[2].buffered);
}

}  // namespace
}  // namespace atomcheck
