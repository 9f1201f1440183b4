#include "vwheel/core/process.hpp"

#include "vwheel/core/fd.hpp"

#include <fcntl.h>
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
/// exited: sleeping 5 ms per check there cost every interpreter query (python3 -I -S, 9 ms) 5 ms
/// more (`analyze-platform --no-cache`, strace: SIGCHLD 5.1 ms before the waitpid). A pidfd
/// (Linux 5.3) wakes up at the exit; without one, the checks start at 50 us and back off.
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

// Runs in the child between fork() and execve(): async-signal-safe calls only.
[[noreturn]] void exec_child(const char* exe, char* const* argv, char* const* envp, const char* cwd, int in_fd,
                             int out_fd, int err_fd, int report_fd) {
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (const int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGXFSZ}) ::sigaction(sig, &dfl, nullptr);
  int err = 0;
  if (cwd != nullptr && ::chdir(cwd) != 0) {
    err = errno;
  } else if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) {
    err = errno;
  } else {
#if defined(__linux__) && defined(CLOSE_RANGE_CLOEXEC)
    // Descriptors the parent leaked without close-on-exec must not reach the provider.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
#endif
    ::execve(exe, argv, envp);
    err = errno;
  }
  const ssize_t ignored = ::write(report_fd, &err, sizeof err);
  static_cast<void>(ignored);
  ::_exit(127);
}

void append_limited(std::string& buffer, const char* data, std::size_t n, std::size_t keep) {
  buffer.append(data, n);
  if (buffer.size() > 2 * keep + 65536) buffer.erase(0, buffer.size() - keep);
}

}  // namespace

Result<ProcessResult> run_process(const ProcessRequest& request) {
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
  auto report_pipe = make_pipe(exe);
  if (!report_pipe) return fail(report_pipe.error());

  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return fail(fmt::format("{}: cannot start: fork: {}", exe, errno_text(errno)));
  if (pid == 0) {
    exec_child(exe.c_str(), argv.data(), envp.data(), cwd.empty() ? nullptr : cwd.c_str(), devnull.get(),
               (*out_pipe)[1].get(), (*err_pipe)[1].get(), (*report_pipe)[1].get());
  }
  ::setpgid(pid, pid);  // also done by the child; whichever runs first (EACCES after exec is fine)
  devnull.reset();
  (*out_pipe)[1].reset();
  (*err_pipe)[1].reset();
  (*report_pipe)[1].reset();

  // The report pipe closes on a successful execve(); otherwise it carries the child's errno.
  int exec_errno = 0;
  for (;;) {
    const ssize_t n = ::read((*report_pipe)[0].get(), &exec_errno, sizeof exec_errno);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof exec_errno)) exec_errno = 0;
    break;
  }
  if (exec_errno != 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return fail(fmt::format("cannot run {}: {}", exe, errno_text(exec_errno)));
  }

  ProcessResult result;
  const auto deadline = start + request.timeout;
  std::array<UniqueFd*, 2> streams{&(*out_pipe)[0], &(*err_pipe)[0]};
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
        if (request.kill_on_overflow && result.out.size() + size > request.max_stdout) {
          result.overflowed = true;
        } else {
          append_limited(result.out, chunk.data(), size, request.max_stdout);
        }
      } else {
        append_limited(result.err, chunk.data(), size, request.max_stderr);
      }
    }
    if (result.overflowed) break;
    if (!exited_at && child_has_exited(pid)) exited_at = Clock::now();
    if (exited_at && Clock::now() - *exited_at > std::chrono::milliseconds(200)) break;
  }

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
  if (result.out.size() > request.max_stdout) result.out.erase(0, result.out.size() - request.max_stdout);
  if (result.err.size() > request.max_stderr) result.err.erase(0, result.err.size() - request.max_stderr);
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return result;
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
