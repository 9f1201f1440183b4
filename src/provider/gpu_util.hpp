#pragma once
// Helpers shared by the GPU providers (nvidia, amd, intel): environment variables, Python-style
// integer parsing and repr() for the reference's messages, sysfs reading, dlopen'ed libraries and
// a probe with a time limit. Private to src/provider/.


#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/dl.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/provider/gpu.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::provider::gpu_detail {

/// The value of an environment variable, or nullopt when unset.
inline std::optional<std::string> env_value(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

/// The value of an environment variable when set and non-empty (Python: `if v := os.environ.get(..)`).
inline std::optional<std::string> env_nonempty(std::string_view name) {
  auto v = env_value(name);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

/// Python's repr() of a str (the text is UTF-8; non-ASCII characters are kept as they are).
inline std::string python_repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch;
    }
  }
  out += quote;
  return out;
}

/// Result of Python's `int(text)` (base 10) on a str.
struct PyInt {
  enum class Status { ok, invalid, too_large };
  Status status = Status::invalid;
  long long value = 0;
};

/// Python's `int(text)`: surrounding (Unicode) whitespace, one sign, ASCII digits with single
/// underscores between them. Values beyond ±10^15 are reported as too_large (vwheel's limit;
/// Python's integers are unbounded). Non-ASCII decimal digits (which Python accepts) are
/// treated as invalid.
inline PyInt python_int(std::string_view text) {
  std::string_view s = python_strip(text);
  PyInt r;
  if (s.empty()) return r;
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return r;
  constexpr long long kLimit = 1'000'000'000'000'000LL;
  long long value = 0;
  bool too_large = false;
  bool prev_digit = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (!too_large) {
        value = value * 10 + (c - '0');
        if (value > kLimit) too_large = true;
      }
      prev_digit = true;
    } else if (c == '_' && prev_digit && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
      prev_digit = false;
    } else {
      return r;
    }
  }
  if (too_large) {
    r.status = PyInt::Status::too_large;
    return r;
  }
  r.status = PyInt::Status::ok;
  r.value = negative ? -value : value;
  return r;
}

/// Python's floor division and modulo (for the reference's `v // 1000`, `v % 1000`).
inline long long py_floordiv(long long a, long long b) {
  long long q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline long long py_mod(long long a, long long b) { return a - py_floordiv(a, b) * b; }

/// The directory read instead of `/sys`: `$VWHEEL_SYSFS_ROOT` when set and non-empty.
inline std::filesystem::path sysfs_root() {
  if (auto v = env_nonempty(kSysfsRootEnv)) return *v;
  return "/sys";
}

/// Reads a small file (sysfs attributes, version files); nullopt when it cannot be opened or read.
inline std::optional<std::string> read_small_file(const std::filesystem::path& path, std::size_t limit = 1 << 20) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<std::size_t>(in.gcount()));
    if (out.size() > limit) break;
  }
  if (in.bad()) return std::nullopt;
  return out;
}

/// Parses a sysfs hex attribute such as "0x8086\n"; nullopt when malformed.
inline std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text) {
  text = python_strip(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  if (text.empty() || text.size() > 8) return std::nullopt;
  std::uint32_t v = 0;
  for (const char c : text) {
    const int d = hex_digit_value(c);
    if (d < 0) return std::nullopt;
    v = (v << 4U) | static_cast<std::uint32_t>(d);
  }
  return v;
}

/// A PCI display controller (class 0x03xxxx) seen in `<sysfs>/bus/pci/devices`.
struct PciDisplay {
  std::string address;  // e.g. 0000:03:00.0
  std::uint32_t vendor = 0;
  std::uint32_t device = 0;
  std::string driver;  // bound kernel driver (amdgpu, i915, xe, nvidia, ...), empty when none
};

/// PCI display controllers of one vendor, sorted by address. Used for `--explain` notes only.
inline std::vector<PciDisplay> pci_displays(const std::filesystem::path& sysfs, std::uint32_t vendor) {
  std::vector<PciDisplay> out;
  std::error_code ec;
  const auto dir = sysfs / "bus" / "pci" / "devices";
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto& p = it->path();
    const auto v = read_small_file(p / "vendor", 64);
    const auto cls = read_small_file(p / "class", 64);
    if (!v || !cls) continue;
    const auto vid = parse_sysfs_hex(*v);
    const auto cid = parse_sysfs_hex(*cls);
    if (!vid || !cid || *vid != vendor || (*cid >> 16) != 0x03) continue;
    PciDisplay d;
    d.address = p.filename().string();
    d.vendor = *vid;
    if (const auto dev = read_small_file(p / "device", 64)) d.device = parse_sysfs_hex(*dev).value_or(0);
    std::error_code lec;
    const auto target = std::filesystem::read_symlink(p / "driver", lec);
    if (!lec) d.driver = target.filename().string();
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const PciDisplay& a, const PciDisplay& b) { return a.address < b.address; });
  return out;
}

/// "2 PCI display devices 10de:2330 (nvidia), 10de:2330 (nvidia)".
inline std::string describe_pci(const std::vector<PciDisplay>& devices) {
  std::string out = fmt::format("{} PCI display device{}", devices.size(), devices.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    out += i == 0 ? " " : ", ";
    out += fmt::format("{:04x}:{:04x} ({})", devices[i].vendor, devices[i].device,
                       devices[i].driver.empty() ? "no driver" : devices[i].driver);
  }
  return out;
}

/// A library opened with dl_open (dlopen(RTLD_NOW | RTLD_LOCAL), LoadLibraryW on Windows).
class DlLibrary {
 public:
  DlLibrary() = default;
  DlLibrary(const DlLibrary&) = delete;
  DlLibrary& operator=(const DlLibrary&) = delete;
  DlLibrary(DlLibrary&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  DlLibrary& operator=(DlLibrary&& o) noexcept {
    if (this != &o) {
      close();
      handle_ = std::exchange(o.handle_, nullptr);
    }
    return *this;
  }
  ~DlLibrary() { close(); }

  /// Opens `name`; on failure returns the loader's reason.
  static Result<DlLibrary> open(const std::string& name) {
    void* h = vwheel::detail::dl_open(name);
    if (h == nullptr) return fail(vwheel::detail::dl_error());
    DlLibrary lib;
    lib.handle_ = h;
    return lib;
  }

  /// The function `name`, or nullptr when the library does not export it.
  template <class Fn>
  [[nodiscard]] Fn function(const char* name) const {
    Fn fn = nullptr;
    if (handle_ != nullptr) vwheel::detail::dl_function(handle_, name, fn);
    return fn;
  }

  /// Keeps the library loaded for the rest of the process (for drivers that must not be unloaded).
  void leak() noexcept { handle_ = nullptr; }

  void close() noexcept {
    if (handle_ != nullptr) vwheel::detail::dl_close(handle_);
    handle_ = nullptr;
  }

 private:
  void* handle_ = nullptr;
};

/// Seconds to wait for a driver library: `$VWHEEL_GPU_PROBE_TIMEOUT`, default 30.
inline std::chrono::milliseconds probe_timeout() {
  if (auto v = env_nonempty(kGpuProbeTimeoutEnv)) {
    const PyInt n = python_int(*v);
    if (n.status == PyInt::Status::ok && n.value > 0 && n.value < 86'400) return std::chrono::seconds(n.value);
  }
  return std::chrono::seconds(30);
}

/// Runs `fn` on a separate thread and waits at most `timeout` for it; nullopt when it did not
/// finish in time (the thread is left to finish, or hang, on its own; `fn` must own everything it
/// uses). When no thread can be started, runs `fn` here. `fn` must not throw.
template <class T>
std::optional<T> run_with_timeout(std::function<T()> fn, std::chrono::milliseconds timeout) {
  struct State {
    std::mutex mutex;
    std::condition_variable done;
    std::optional<T> value;
  };
  auto state = std::make_shared<State>();
  auto task = std::make_shared<std::function<T()>>(std::move(fn));
  try {
    std::thread worker([state, task]() {
      T v = (*task)();
      const std::lock_guard<std::mutex> lock(state->mutex);
      state->value = std::move(v);
      state->done.notify_all();
    });
    worker.detach();
  } catch (const std::system_error&) {
    return (*task)();
  }
  std::unique_lock<std::mutex> lock(state->mutex);
  if (!state->done.wait_for(lock, timeout, [&] { return state->value.has_value(); })) return std::nullopt;
  return std::move(state->value);
}

/// Splits `text` at runs of separators, dropping empty pieces: Python's
/// `re.split(r"[<extra>\s]+", text.strip())` followed by removing empty strings. Whitespace is
/// Unicode whitespace (as Python's `\s` on str); `extra` lists further ASCII separators.
inline std::vector<std::string> split_on_separators(std::string_view text, std::string_view extra) {
  std::vector<std::string> out;
  std::string current;
  std::size_t i = 0;
  while (i < text.size()) {
    // One character at a time; a byte that is not valid UTF-8 is a (non-space) piece of its own.
    const std::size_t len = std::max<std::size_t>(utf8_length(text, i), 1);
    const std::string_view cp = text.substr(i, len);
    const bool separator = (len == 1 && extra.find(cp[0]) != std::string_view::npos) || python_strip(cp).empty();
    if (separator) {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current += cp;
    }
    i += len;
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

/// Replaces line breaks by spaces (notes are one line each).
inline std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

/// A GPU provider: reference metadata plus a detection function. `detect()` never throws: an
/// unexpected exception becomes an empty answer with a note naming `vendor`.
class GpuProvider final : public Provider {
 public:
  using AllConfigs = std::vector<variant::FeatureConfig> (*)();
  using Detect = Detection (*)();
  GpuProvider(std::string_view ns, std::string_view version, std::string_view vendor, std::string_view source,
              AllConfigs all, Detect detect_fn)
      : ns_(ns), version_(version), vendor_(vendor), source_(source), all_(all), detect_(detect_fn) {}

  [[nodiscard]] std::string_view ns() const override { return ns_; }
  [[nodiscard]] std::string_view version() const override { return version_; }
  [[nodiscard]] std::vector<variant::FeatureConfig> all_configs() const override { return all_(); }
  [[nodiscard]] Detection detect() const override {
    try {
      return detect_();
    } catch (const std::exception& e) {
      Detection d;
      d.source = std::string(source_);
      d.notes.push_back(fmt::format("{} detection failed: {}", vendor_, e.what()));
      return d;
    }
  }

 private:
  std::string_view ns_, version_, vendor_, source_;
  AllConfigs all_;
  Detect detect_;
};

}  // namespace vwheel::provider::gpu_detail
