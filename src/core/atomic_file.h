// Text files written atomically, for generated files (hostfiles, job scripts, cluster configs):
// the text goes to "<path>.tmp-<pid>" in the same directory, which is fsync'ed and renamed over
// `path`. A reader sees the old file or the complete new one, never a partial one; on failure the
// temporary file is removed, `path` is untouched and the Status (IoError) names both files.
// (Protobuf files have their own writer with the same guarantees: proto_io.h.)
//
// Stateless; thread-safe except that two writers in one process must not write the same path.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/status.h"

namespace dtrain {

// Replaces `path` with `text`; the file gets permission bits `mode` (before the umask).
Status WriteFileAtomically(const std::string& path, const std::string& text, mode_t mode = 0644);

}  // namespace dtrain
