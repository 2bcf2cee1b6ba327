// tests/test_tso_z3.cpp at full size (label `long`): Z3 against the brute force on
// 10,200 random traces, so that at least 10,000 are decided (a few minutes).
#define ATOMCHECK_Z3_BRUTE_TRACES 10200
#include "tests/test_tso_z3.cpp"
