// The naive RC11/SC judge's properties at full size (label `long`): SC ⊆ RC11 and the SC
// enumerator against the SC explorer on 10^4 random programs each, RC11 = SC on 10^4
// all-seq_cst programs, and SC ⊆ RC11 on programs with up to 10^5 rf maps. test_rc11_naive.cpp runs the CI-sized variants.
#include <gtest/gtest.h>

#include "tests/support/rc11_program.hpp"

namespace {

using namespace atomcheck::testing_support;

TEST(Rc11NaivePropertiesLong, ScIsIncludedInRc11) { check_sc_included_in_rc11(10000, 4314); }

TEST(Rc11NaivePropertiesLong, ScIsIncludedInRc11OnBiggerPrograms) {
  check_sc_included_in_rc11(2000, 4316, {.max_rf_maps = 1e5});
}

TEST(Rc11NaivePropertiesLong, AllScProgramsHaveOnlyScOutcomes) { check_all_sc_programs_are_sc(10000, 4318); }

TEST(Rc11NaivePropertiesLong, ScEnumeratorAgreesWithTheScExplorer) {
  check_judge_against_explorer(10000, 4315, sc_judge, atomcheck::MemoryModelKind::sc);
}

}  // namespace
