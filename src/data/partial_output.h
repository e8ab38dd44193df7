// Writing output directories (LMDBs) so that a failed or killed run never leaves a partial one
// where a finished one belongs: the converters write each output as
// "<dir>/.<name>.partial.<pid>" and rename them all to their paths once every one is complete.
// A run killed before the rename leaves only the hidden partials, which the next run removes
// (core/stale_files.h); a failure removes them at once. Stateless.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// Refuses an existing path in `paths`; then calls `write` with one partial path per output and,
// when it succeeds, renames each to its path. Errors name the paths.
Status WriteOutputsAtomically(
    const std::vector<std::string>& paths,
    const std::function<Status(const std::vector<std::string>& partials)>& write);

}  // namespace dtrain
