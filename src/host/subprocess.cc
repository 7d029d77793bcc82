#include "host/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <utility>

extern char** environ;

namespace ys::host {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Owns one file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  UniqueFd read, write;
};

Result<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::Io(fmt::format("pipe: {}", strerror(errno)));
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Owns a started child: until Reap() has collected it, destruction kills its process group and
// reaps it, so no early return leaves a running or zombie child behind.
class ChildProcess {
 public:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (!reaped_) {
      Kill();
      int st;
      while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
      }
    }
  }

  // The whole process group (the child leads it), and the child itself in case it left it.
  void Kill() const {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
  // True once the child has ended; its wait status in *status.
  bool TryReap(int* status) {
    if (reaped_) return true;
    pid_t r = ::waitpid(pid_, status, WNOHANG);
    if (r == pid_) reaped_ = true;
    return reaped_;
  }
  void Reap(int* status) {
    while (!reaped_) {
      pid_t r = ::waitpid(pid_, status, 0);
      if (r == pid_ || (r < 0 && errno != EINTR)) reaped_ = true;
    }
  }

 private:
  pid_t pid_;
  bool reaped_ = false;
};

// Blocks SIGPIPE in this thread while stdin is written, so that a child that exits without
// reading makes write() fail with EPIPE instead of killing yardstick; a SIGPIPE raised meanwhile
// is consumed before the mask is restored.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_);
  }
  ~ScopedSigpipeBlock() {
    if (!was_pending_) {
      sigset_t pipe_set;
      sigemptyset(&pipe_set);
      sigaddset(&pipe_set, SIGPIPE);
      struct timespec zero = {0, 0};
      while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

// posix_spawn attributes and file actions, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    std::string_view name = kv.substr(0, kv.find('='));
    if (extra.count(std::string(name)) == 0) env.emplace_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

// Appends what is readable on fd to *sink (up to `limit` bytes kept); false at end of file.
bool Drain(int fd, std::string* sink, size_t limit, bool* truncated) {
  std::array<char, 65536> buf;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      size_t keep = std::min(static_cast<size_t>(n), limit - std::min(limit, sink->size()));
      sink->append(buf.data(), keep);
      if (keep < static_cast<size_t>(n)) *truncated = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;  // other errors: treat as closed
  }
}

// The spawned child in its own process group, so that a timeout kills whatever it started too;
// default signal handling and an empty mask whatever this thread has; stdin from the pipe or
// /dev/null, stdout and stderr into the pipes.
void ConfigureSpawn(SpawnSetup& setup, const std::optional<Pipe>& in_pipe, const Pipe& out_pipe,
                    const Pipe& err_pipe) {
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setsigmask(&setup.attr, &empty);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (in_pipe) {
    posix_spawn_file_actions_adddup2(&setup.actions, in_pipe->read.get(), STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&setup.actions, out_pipe.write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err_pipe.write.get(), STDERR_FILENO);
}

Status SpawnError(const std::string& program, int rc) {
  if (rc == ENOENT) {
    return Status::NotFound(program + (program.find('/') == std::string::npos
                                           ? ": not found in PATH"
                                           : ": no such file"));
  }
  if (rc == EACCES) return Status::Denied(program + ": not executable (" + strerror(rc) + ")");
  return Status::Io(program + ": cannot start: " + strerror(rc));
}

// The parent's ends of the child's pipes, and what is left to write to its stdin.
struct Streams {
  UniqueFd out, err, in;
  std::string_view to_write;
};

// Reads stdout and stderr and writes stdin until the child ends (true; its status in
// *wait_status) or the deadline passes (false).
Result<bool> PumpUntilExit(const SubprocessOptions& options, Clock::time_point deadline,
                           ChildProcess& child, Streams& io, SubprocessResult& result,
                           int* wait_status) {
  for (;;) {
    auto now = Clock::now();
    if (now >= deadline) break;
    std::vector<pollfd> fds;
    if (io.out.valid()) fds.push_back({io.out.get(), POLLIN, 0});
    if (io.err.valid()) fds.push_back({io.err.get(), POLLIN, 0});
    if (io.in.valid()) fds.push_back({io.in.get(), POLLOUT, 0});
    // Wake up now and then to notice a child that ended while a grandchild holds the pipes.
    auto wait = std::min(std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1),
                         milliseconds(fds.empty() ? 10 : 100));
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(wait.count()));
    if (n < 0 && errno != EINTR) return Status::Io(options.argv[0] + ": poll: " + strerror(errno));
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == io.out.get()) {
        if (!Drain(p.fd, &result.out, options.max_output_bytes, &result.output_truncated))
          io.out.Reset();
      } else if (p.fd == io.err.get()) {
        if (!Drain(p.fd, &result.err, options.max_output_bytes, &result.output_truncated))
          io.err.Reset();
      } else if (p.fd == io.in.get()) {
        ssize_t w = ::write(p.fd, io.to_write.data(), io.to_write.size());
        if (w > 0) io.to_write.remove_prefix(static_cast<size_t>(w));
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || io.to_write.empty()) io.in.Reset();
      }
    }
    if (child.TryReap(wait_status)) {
      // Whatever is still buffered in the pipes belongs to the result.
      if (io.out.valid())
        Drain(io.out.get(), &result.out, options.max_output_bytes, &result.output_truncated);
      if (io.err.valid())
        Drain(io.err.get(), &result.err, options.max_output_bytes, &result.output_truncated);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string SubprocessResult::Describe() const {
  if (timed_out) {
    return fmt::format("timed out after {:.1f} s (killed)",
                       static_cast<double>(elapsed.count()) / 1000.0);
  }
  if (term_signal != 0)
    return fmt::format("killed by signal {} ({})", term_signal, strsignal(term_signal));
  return fmt::format("exit {}", exit_code);
}

std::string SubprocessResult::Explain(const std::string& program) const {
  auto first_line = [](const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return std::string();
    size_t e = s.find('\n', b);
    return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  std::string line = first_line(err);
  if (line.empty()) line = first_line(out);
  return program + ": " + Describe() + (line.empty() ? "" : ": " + line);
}

Result<SubprocessResult> RunSubprocess(const SubprocessOptions& options) {
  if (options.argv.empty() || options.argv[0].empty())
    return Status::Invalid("subprocess: empty argument vector");
  for (const auto& a : options.argv) {
    if (a.find('\0') != std::string::npos) {
      return Status::Invalid("subprocess: an argument of " + options.argv[0] +
                             " contains a NUL byte");
    }
  }
  const std::string& program = options.argv[0];

  std::vector<char*> argv;
  for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = MergedEnvironment(options.env);
  std::vector<char*> envp;
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  auto out_pipe = MakePipe();
  if (!out_pipe.ok()) return out_pipe.status();
  auto err_pipe = MakePipe();
  if (!err_pipe.ok()) return err_pipe.status();
  std::optional<Pipe> in_pipe;
  if (options.stdin_data) {
    auto p = MakePipe();
    if (!p.ok()) return p.status();
    in_pipe = std::move(*p);
  }

  SpawnSetup setup;
  ConfigureSpawn(setup, in_pipe, *out_pipe, *err_pipe);

  const auto start = Clock::now();
  pid_t pid = -1;
  int rc =
      posix_spawnp(&pid, program.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) return SpawnError(program, rc);
  ChildProcess child(pid);
  out_pipe->write.Reset();
  err_pipe->write.Reset();
  if (in_pipe) in_pipe->read.Reset();

  SubprocessResult result;
  const auto deadline = start + options.timeout;
  UniqueFd out_fd = std::move(out_pipe->read), err_fd = std::move(err_pipe->read);
  UniqueFd in_fd = in_pipe ? std::move(in_pipe->write) : UniqueFd();
  SetNonBlocking(out_fd.get());
  SetNonBlocking(err_fd.get());
  std::string_view to_write =
      options.stdin_data ? std::string_view(*options.stdin_data) : std::string_view();
  if (in_fd.valid()) {
    SetNonBlocking(in_fd.get());
    if (to_write.empty()) in_fd.Reset();
  }
  ScopedSigpipeBlock sigpipe_block;

  int wait_status = 0;
  Streams io{std::move(out_fd), std::move(err_fd), std::move(in_fd), to_write};
  auto ended = PumpUntilExit(options, deadline, child, io, result, &wait_status);
  if (!ended.ok()) return ended.status();
  if (!*ended) {
    child.Kill();
    child.Reap(&wait_status);
    result.timed_out = true;
  }
  result.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  if (WIFEXITED(wait_status)) {
    result.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    result.term_signal = WTERMSIG(wait_status);
  }
  return result;
}

}  // namespace ys::host
