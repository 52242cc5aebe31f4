// SPDX-License-Identifier: Apache-2.0
// The main of every test binary: GoogleTest's, plus two exit codes CTest can read. A run whose
// every selected test skipped itself (GPU tests on a machine without a GPU) exits with 77, which
// CTest reports as skipped (SKIP_RETURN_CODE), so a failure in the same binary is never hidden
// by a skip regex; a filter that selects nothing is a mistake and fails.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (unit.test_to_run_count() == 0) {
    std::fprintf(stderr, "no test matched the filter\n");
    return 1;
  }
  if (result == 0 && unit.skipped_test_count() == unit.test_to_run_count()) return 77;
  return result;
}
