#include "core/thread_signals.h"

#include <pthread.h>

#include <csignal>
#include <initializer_list>

namespace dtrain {

void BlockAsynchronousSignals() {
  sigset_t signals;
  sigfillset(&signals);
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigdelset(&signals, fault);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

}  // namespace dtrain
