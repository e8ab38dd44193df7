// How the solver's loops over every element of a parameter run: vectorised (`omp simd`), and on
// every compute thread once a parameter has kThreadedUpdateElements elements; for fewer, waking
// the threads costs more than it saves. Each element's arithmetic is the same either way, so
// results do not depend on the thread count. (The loops' `if` clause names `parallel`: unnamed,
// it would switch off the vectorisation too.)
#pragma once

#include <cstdint>

namespace dtrain {

constexpr int64_t kThreadedUpdateElements = int64_t{1} << 15;

}  // namespace dtrain
