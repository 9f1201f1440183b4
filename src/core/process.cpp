#include "vwheel/core/process.hpp"

#include "vwheel/core/fd.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

extern char** environ;

namespace vwheel {
namespace {

using Clock = std::chrono::steady_clock;

/// Moves `fd` to a number >= 3 (keeping close-on-exec), so that dup2() onto 0, 1 and 2 in the
/// child never clobbers another of our descriptors, even when the parent runs with 0-2 closed.
UniqueFd above_stdio(int fd) {
  if (fd < 0 || fd > 2) return UniqueFd(fd);
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int err = errno;
  ::close(fd);
  errno = err;
  return UniqueFd(moved);
}

Result<std::array<UniqueFd, 2>> make_pipe(const std::string& what) {
  std::array<int, 2> raw{};
  if (::pipe2(raw.data(), O_CLOEXEC) != 0) {
    return fail(fmt::format("{}: cannot create a pipe: {}", what, errno_text(errno)));
  }
  std::array<UniqueFd, 2> fds{above_stdio(raw[0]), above_stdio(raw[1])};
  if (!fds[0] || !fds[1]) {
    return fail(fmt::format("{}: cannot create a pipe: {}", what, errno_text(errno)));
  }
  return fds;
}

bool child_has_exited(pid_t pid) {
  siginfo_t info{};
  info.si_pid = 0;
  // WNOWAIT: leave the child a zombie, so that its pid (= the process group id) cannot be reused
  // before the group is killed.
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return info.si_pid != 0;
}

void kill_group(pid_t pid) {
  if (::kill(-pid, SIGKILL) != 0 && errno == ESRCH) ::kill(pid, SIGKILL);
}

/// Waits until the child `pid` has exited (leaving it a zombie) or `deadline` passes; true when it
/// exited. The pipes reach their end as the child exits, a moment before the kernel marks it
/// exited; a child may also close them and run on. Checking every 5 ms there cost a query up to
/// 5 ms after its pipes ended (seen under strace: SIGCHLD 5.1 ms before the waitpid; without it,
/// seldom). A pidfd (Linux 5.3) wakes up at the exit; without one, the checks start at 50 us and
/// back off to 5 ms.
bool wait_for_exit(pid_t pid, Clock::time_point deadline) {
  if (child_has_exited(pid)) return true;
#ifdef SYS_pidfd_open
  if (const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); pidfd >= 0) {
    for (;;) {
      if (child_has_exited(pid)) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) break;
      pollfd p{pidfd, POLLIN, 0};
      (void)::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    }
    ::close(pidfd);
    return child_has_exited(pid);
  }
#endif
  auto pause = std::chrono::microseconds(50);
  while (!child_has_exited(pid)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
  return true;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<long long>(left, 1000));
}

/// posix_spawn's attributes and file actions for a child: its own process group, no signal
/// blocked and the default action for those vwheel handles or ignores, standard input from
/// /dev/null, standard output and error into the pipes, no other descriptor (the parent's that
/// lack close-on-exec included), `cwd` when given.
///
/// Why posix_spawn and not fork: glibc starts the child with CLONE_VM|CLONE_VFORK, so the parent's
/// page tables are not copied nor its pages made copy-on-write while its other threads go on
/// (downloads and unpacking keep running while a build backend or provider starts), and an
/// exec failure comes back as the call's result, without a report pipe. On a process of vwheel's
/// size it saves no measurable time: `analyze-platform --json --no-cache` took 11.7 ms against
/// 11.8-12.3 ms with fork (hyperfine, 100 runs each, one run; `python3 -c pass` 8.6-8.9 ms).
class Spawn {
 public:
  Spawn(const std::string& cwd, int in_fd, int out_fd, int err_fd) {
    ::posix_spawn_file_actions_init(&actions_);
    ::posix_spawnattr_init(&attr_);
    if (!cwd.empty()) ::posix_spawn_file_actions_addchdir_np(&actions_, cwd.c_str());
    ::posix_spawn_file_actions_adddup2(&actions_, in_fd, 0);
    ::posix_spawn_file_actions_adddup2(&actions_, out_fd, 1);
    ::posix_spawn_file_actions_adddup2(&actions_, err_fd, 2);
    ::posix_spawn_file_actions_addclosefrom_np(&actions_, 3);
    sigset_t none;
    sigemptyset(&none);
    ::posix_spawnattr_setsigmask(&attr_, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (const int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGXFSZ}) sigaddset(&defaults, sig);
    ::posix_spawnattr_setsigdefault(&attr_, &defaults);
    ::posix_spawnattr_setpgroup(&attr_, 0);
    ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  Spawn(const Spawn&) = delete;
  Spawn& operator=(const Spawn&) = delete;
  ~Spawn() {
    ::posix_spawn_file_actions_destroy(&actions_);
    ::posix_spawnattr_destroy(&attr_);
  }
  struct Started {
    pid_t pid = -1;
    int error = 0;  ///< the errno of what failed (a chdir, a dup2 or the execve itself), else 0
  };
  [[nodiscard]] Started run(const char* exe, char* const* argv, char* const* envp) const {
    Started out;
    out.error = ::posix_spawn(&out.pid, exe, &actions_, &attr_, argv, envp);
    return out;
  }

 private:
  posix_spawn_file_actions_t actions_{};
  posix_spawnattr_t attr_{};
};

void append_limited(std::string& buffer, const char* data, std::size_t n, std::size_t keep) {
  buffer.append(data, n);
  if (buffer.size() > 2 * keep + 65536) buffer.erase(0, buffer.size() - keep);
}

}  // namespace

Result<RunningProcess> start_process(const ProcessRequest& request) {
  if (request.argv.empty()) return fail(std::string("run_process: empty command"));
  const std::string& exe = request.argv.front();

  std::vector<char*> argv;
  argv.reserve(request.argv.size() + 1);
  for (const auto& a : request.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  envp.reserve(request.env.size() + 1);
  for (const auto& e : request.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cwd = request.cwd.string();

  UniqueFd devnull = above_stdio(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull) return fail(fmt::format("{}: cannot open /dev/null: {}", exe, errno_text(errno)));
  auto out_pipe = make_pipe(exe);
  if (!out_pipe) return fail(out_pipe.error());
  auto err_pipe = make_pipe(exe);
  if (!err_pipe) return fail(err_pipe.error());

  RunningProcess running;
  running.start_ = Clock::now();
  const auto spawned = Spawn(cwd, devnull.get(), (*out_pipe)[1].get(), (*err_pipe)[1].get())
                           .run(exe.c_str(), argv.data(), envp.data());
  if (spawned.error != 0) return fail(fmt::format("cannot run {}: {}", exe, errno_text(spawned.error)));
  running.pid_ = spawned.pid;
  running.out_ = std::move((*out_pipe)[0]);
  running.err_ = std::move((*err_pipe)[0]);
  running.timeout_ = request.timeout;
  running.max_stdout_ = request.max_stdout;
  running.kill_on_overflow_ = request.kill_on_overflow;
  running.max_stderr_ = request.max_stderr;
  return running;
}

RunningProcess::RunningProcess(RunningProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)),
      start_(other.start_),
      timeout_(other.timeout_),
      max_stdout_(other.max_stdout_),
      kill_on_overflow_(other.kill_on_overflow_),
      max_stderr_(other.max_stderr_) {}

RunningProcess::~RunningProcess() {
  if (pid_ < 0) return;
  kill_group(pid_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

ProcessResult RunningProcess::finish() {
  ProcessResult result;
  if (pid_ < 0) return result;
  const pid_t pid = std::exchange(pid_, -1);
  const auto deadline = start_ + timeout_;
  std::array<UniqueFd*, 2> streams{&out_, &err_};
  std::array<char, 65536> chunk{};
  std::optional<Clock::time_point> exited_at;
  bool killed = false;
  for (;;) {
    std::array<pollfd, 2> pfds{};
    nfds_t count = 0;
    std::array<int, 2> which{};
    for (int i = 0; i < 2; ++i) {
      if (*streams[static_cast<std::size_t>(i)]) {
        pfds[count] = pollfd{streams[static_cast<std::size_t>(i)]->get(), POLLIN, 0};
        which[count] = i;
        ++count;
      }
    }
    if (count == 0) break;
    const int wait_ms = remaining_ms(deadline);
    if (wait_ms == 0) {
      result.timed_out = true;
      break;
    }
    // While the child runs, wake up now and then to notice that it exited while a descendant
    // still holds the pipes open.
    const int rc = ::poll(pfds.data(), count, std::min(wait_ms, 100));
    if (rc < 0 && errno != EINTR) break;
    for (nfds_t k = 0; k < count && rc > 0; ++k) {
      if ((pfds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      UniqueFd& fd = *streams[static_cast<std::size_t>(which[k])];
      const ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
      if (n < 0) {
        if (errno != EINTR && errno != EAGAIN) fd.reset();
        continue;
      }
      if (n == 0) {
        fd.reset();
        continue;
      }
      const auto size = static_cast<std::size_t>(n);
      if (which[k] == 0) {
        if (kill_on_overflow_ && result.out.size() + size > max_stdout_) {
          result.overflowed = true;
        } else {
          append_limited(result.out, chunk.data(), size, max_stdout_);
        }
      } else {
        append_limited(result.err, chunk.data(), size, max_stderr_);
      }
    }
    if (result.overflowed) break;
    if (!exited_at && child_has_exited(pid)) exited_at = Clock::now();
    if (exited_at && Clock::now() - *exited_at > std::chrono::milliseconds(200)) break;
  }
  out_.reset();
  err_.reset();

  if (result.timed_out || result.overflowed) {
    kill_group(pid);
    killed = true;
  }
  // The pipes are closed (or abandoned); the child may still run, e.g. after closing them.
  if (!killed && !wait_for_exit(pid, deadline)) {
    result.timed_out = true;
    kill_group(pid);
    killed = true;
  }
  // Whatever the provider left behind in its process group goes too.
  kill_group(pid);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (result.out.size() > max_stdout_) result.out.erase(0, result.out.size() - max_stdout_);
  if (result.err.size() > max_stderr_) result.err.erase(0, result.err.size() - max_stderr_);
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
  return result;
}

Result<ProcessResult> run_process(const ProcessRequest& request) {
  auto running = start_process(request);
  if (!running) return fail(running.error());
  return running->finish();
}

std::optional<std::filesystem::path> find_executable(std::string_view name, std::string_view path_env) {
  namespace fs = std::filesystem;
  const auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    std::error_code ec;
    fs::path p = fs::absolute(fs::path(name), ec);
    if (ec || !usable(p)) return std::nullopt;
    return p;
  }
  std::size_t pos = 0;
  for (;;) {
    const std::size_t colon = path_env.find(':', pos);
    const std::string_view dir = path_env.substr(pos, colon == std::string_view::npos ? colon : colon - pos);
    std::error_code ec;
    fs::path p = fs::absolute(fs::path(dir.empty() ? std::string_view(".") : dir) / fs::path(name), ec);
    if (!ec && usable(p)) return p;
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  return std::nullopt;
}

std::string last_line(std::string_view text, std::size_t limit) {
  std::string_view line;
  while (!text.empty()) {
    const std::size_t nl = text.find_last_of('\n');
    std::string_view candidate = nl == std::string_view::npos ? text : text.substr(nl + 1);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(0, nl);
    const bool blank = std::all_of(candidate.begin(), candidate.end(),
                                   [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; });
    if (!blank) {
      line = candidate;
      break;
    }
  }
  std::string out;
  out.reserve(std::min(line.size(), limit + 3));
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\t') {
      out += ' ';
    } else if (c >= 0x20 && c != 0x7f) {
      out += ch;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::size_t first = out.find_first_not_of(' ');
  out.erase(0, first == std::string::npos ? out.size() : first);
  if (out.size() > limit) {
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    out.resize(cut);
    out += "...";
  }
  return out;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

}  // namespace vwheel
