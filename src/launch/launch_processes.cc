#include "launch/launch_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "cluster/shell_quote.h"

extern char** environ;

namespace dtrain {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;  // the last one received
volatile std::sig_atomic_t g_unforwarded = 0;  // received and not yet passed on
void RecordStopSignal(int signal) { g_stop_signal = g_unforwarded = signal; }

// Passes a stop signal received since the last call on to `pid`.
void ForwardStopSignal(pid_t pid) {
  if (g_unforwarded != 0) {
    kill(pid, g_unforwarded);
    g_unforwarded = 0;
  }
}

StatusOr<pid_t> SpawnWith(const std::vector<std::string>& argv, bool own_group,
                          posix_spawn_file_actions_t* files) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (own_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], files, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return IoError("cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

int ExitStatus(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Splits what arrives on one pipe into lines for `on_line` and copies it to `out` as it comes.
struct OutputStream {
  int fd;
  FILE* out;
  std::string partial;
};

}  // namespace

void RecordStopSignals() {
  signal(SIGTERM, RecordStopSignal);
  signal(SIGINT, RecordStopSignal);
}

int StopSignalReceived() { return g_stop_signal; }

StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, bool own_group) {
  return SpawnWith(argv, own_group, nullptr);
}

StatusOr<int> RunWatchingOutput(const std::vector<std::string>& argv,
                                const std::function<void(const std::string&)>& on_line) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return IoError("pipe: " + std::string(std::strerror(errno)));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]), close(out_pipe[1]);
    return IoError("pipe: " + std::string(std::strerror(errno)));
  }
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&files, err_pipe[1], STDERR_FILENO);
  StatusOr<pid_t> pid = SpawnWith(argv, /*own_group=*/false, &files);
  posix_spawn_file_actions_destroy(&files);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!pid.ok()) {
    close(out_pipe[0]), close(err_pipe[0]);
    return pid.status();
  }
  OutputStream streams[2] = {{out_pipe[0], stdout, ""}, {err_pipe[0], stderr, ""}};
  int open_streams = 2;
  char chunk[65536];
  int status = 0;
  bool exited = false;
  auto exited_at = std::chrono::steady_clock::now();
  // Until both pipes are closed, waking every 100 ms to pass stop signals on; once the process
  // has exited, at most 2 s more for what a child of it that holds the pipes still writes.
  while (open_streams > 0) {
    if (!exited && waitpid(*pid, &status, WNOHANG) == *pid) {
      exited = true;
      exited_at = std::chrono::steady_clock::now();
    }
    if (exited && std::chrono::steady_clock::now() - exited_at > std::chrono::seconds(2)) break;
    if (!exited) ForwardStopSignal(*pid);
    pollfd fds[2];
    for (int i = 0; i < 2; ++i) fds[i] = {streams[i].fd, POLLIN, 0};
    if (poll(fds, 2, 100) < 0) continue;  // EINTR: a signal
    for (int i = 0; i < 2; ++i) {
      OutputStream& s = streams[i];
      if (s.fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(s.fd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (!s.partial.empty()) on_line(s.partial);
        close(s.fd);
        s.fd = -1;
        fds[i].fd = -1;
        --open_streams;
        continue;
      }
      std::fwrite(chunk, 1, static_cast<size_t>(n), s.out);
      std::fflush(s.out);
      s.partial.append(chunk, static_cast<size_t>(n));
      for (size_t end; (end = s.partial.find('\n')) != std::string::npos;) {
        on_line(s.partial.substr(0, end));
        s.partial.erase(0, end + 1);
      }
    }
  }
  for (OutputStream& s : streams) {
    if (s.fd < 0) continue;
    if (!s.partial.empty()) on_line(s.partial);
    close(s.fd);
  }
  while (!exited && waitpid(*pid, &status, WNOHANG) != *pid) {
    ForwardStopSignal(*pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ExitStatus(status);
}

void StopProcessGroup(pid_t pid) {
  kill(-pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
}

std::pair<int, std::string> Capture(const std::vector<std::string>& argv) {
  FILE* pipe = popen((ShellJoin(argv) + " 2>&1 < /dev/null").c_str(), "r");
  if (!pipe) return {-1, "cannot run " + argv[0]};
  std::string output;
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof(chunk), pipe)) > 0;) output.append(chunk, n);
  const int status = pclose(pipe);
  return {ExitStatus(status), output};
}

}  // namespace dtrain
