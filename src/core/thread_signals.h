// Signal masks for dtrain's worker threads (prefetch, thread pools): the asynchronous signals
// (SIGINT, SIGTERM, SIGHUP, ...) are for the main thread, which stops or snapshots between
// iterations; the synchronous ones a fault raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL) stay
// unblocked, since Linux kills the process outright when they arrive blocked, before any
// handler (the LMDB fault report, data/lmdb_db.h) can say what failed.
#pragma once

namespace dtrain {

// Blocks every signal but the synchronous ones in the calling thread.
void BlockAsynchronousSignals();

}  // namespace dtrain
