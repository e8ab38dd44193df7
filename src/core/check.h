// DT_CHECK: aborts on a broken internal invariant (a bug in dtrain, never a user's mistake;
// those are reported through Status). Prints file:line and the failed condition.
#pragma once

#include <cstdio>
#include <cstdlib>

#define DT_CHECK(cond)                                                                         \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::fprintf(stderr, "F %s:%d] internal check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)

#define DT_CHECK_EQ(a, b) DT_CHECK((a) == (b))
#define DT_CHECK_LT(a, b) DT_CHECK((a) < (b))
#define DT_CHECK_LE(a, b) DT_CHECK((a) <= (b))
#define DT_CHECK_GE(a, b) DT_CHECK((a) >= (b))
