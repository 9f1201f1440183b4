// libFuzzer target for an upload's multipart/form-data body (server component): the input is a
// raw body, sent with `boundary=vwheelboundary` through cpp-httplib's own request processing and
// multipart parser (Server::process_request over an in-memory stream that hands out the bytes
// in pseudo-random chunks) into the MultipartReceiver that `vwheel index serve` uses, with small
// limits so that they are reached. The first input byte seeds the chunking. Checked: the limits
// hold, the fields are what the parser gave (last one wins), the file on disk holds exactly the
// bytes given for the `content` part with the right size and SHA-256, and the temporary folder
// is gone once the receiver is.

#include <stdlib.h>  // mkdtemp

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

// Debian's shared libcpp-httplib is built with these (`pkg-config --cflags cpp-httplib`), and the
// classes' layout depends on them.
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT
#endif
#ifndef CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#endif
#ifndef CPPHTTPLIB_BROTLI_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#endif
#include <httplib.h>

#include "server/multipart.hpp"
#include "vwheel/core/hash.hpp"

namespace {

namespace fs = std::filesystem;
using vwheel::server::MultipartLimits;
using vwheel::server::MultipartReceiver;

constexpr std::string_view kBoundary = "vwheelboundary";

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_multipart: %s\n", what);
  std::abort();
}

// A request in memory, read in chunks of 1..64 bytes chosen by a small xorshift generator.
class ChunkedStream final : public httplib::Stream {
 public:
  ChunkedStream(std::string input, std::uint32_t seed) : input_(std::move(input)), state_(seed | 1U) {}
  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    if (pos_ >= input_.size()) return 0;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    std::size_t n = 1 + state_ % 64;
    n = std::min({n, size, input_.size() - pos_});
    input_.copy(ptr, n, pos_);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    output_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 1;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 2;
  }
  socket_t socket() const override { return INVALID_SOCKET; }

 private:
  std::string input_;
  std::string output_;
  std::size_t pos_ = 0;
  std::uint32_t state_;
};

// Exposes httplib's request processing, which the listening server runs per request.
class InMemoryServer : public httplib::Server {
 public:
  using httplib::Server::process_request;
};

// One folder for the whole run, removed at exit.
struct TempRoot {
  fs::path path;
  TempRoot() {
    std::string pattern = (fs::temp_directory_path() / "fuzz_multipart.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) die("cannot create a temporary folder");
    path = pattern;
  }
  ~TempRoot() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& temp_root() {
  static const TempRoot root;
  return root.path;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void check(const MultipartReceiver& receiver, const MultipartLimits& limits) {
  const auto& failure = receiver.failure();
  if (receiver.parts() > limits.max_parts && !(failure.status == 400 && failure.message.starts_with("too many"))) {
    die("more parts than the limit were accepted");
  }
  if (receiver.field_bytes() > limits.max_field_bytes && failure.status != 413) {
    die("more field bytes than the limit were accepted");
  }
  if (receiver.form().size > limits.max_file_size) die("a file over the limit was written");
  if (receiver.failed() && (failure.message.empty() || failure.message.find('\n') != std::string::npos)) {
    die("a refusal without a one-line message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::ostringstream request;
  request << "POST / HTTP/1.1\r\nHost: fuzz\r\nContent-Type: multipart/form-data; boundary=" << kBoundary
          << "\r\nContent-Length: " << body.size() << "\r\n\r\n"
          << body;

  MultipartLimits limits;
  limits.max_file_size = 4096;
  limits.max_field_bytes = 512;
  limits.max_parts = 8;

  InMemoryServer server;
  fs::path temp_dir;
  server.Post(".*", [&](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) {
    MultipartReceiver receiver(temp_root(), limits);
    // What the parser handed over, kept independently of the receiver.
    std::map<std::string, std::string> fields;
    std::string file;
    std::string* current = nullptr;
    bool in_content = false;
    bool seen_content = false;
    std::size_t parts = 0;
    const bool ok = reader(
        [&](const httplib::MultipartFormData& header) {
          const bool accepted = receiver.on_part(header.name, header.filename);
          if (!accepted) return false;
          ++parts;
          current = nullptr;
          in_content = false;
          if (header.filename.empty()) {
            current = &fields[header.name];
            current->clear();
          } else if (header.name == "content") {
            if (seen_content) die("a second `content` file was accepted");
            in_content = seen_content = true;
          }
          return true;
        },
        [&](const char* bytes, std::size_t n) {
          if (!receiver.on_data(bytes, n)) return false;
          if (in_content) file.append(bytes, n);
          if (current != nullptr) current->append(bytes, n);
          return true;
        });
    check(receiver, limits);
    if (parts > limits.max_parts) die("the receiver accepted more parts than the limit");
    if (!ok && !receiver.failed()) receiver.refuse(400, "malformed multipart/form-data body");
    if (receiver.finish()) {
      const auto& form = receiver.form();
      if (form.fields != fields) die("the fields differ from what the parser gave");
      if (seen_content) {
        if (form.size != file.size()) die("the file size differs from the bytes given");
        if (read_file(form.file) != file) die("the file on disk differs from the bytes given");
        vwheel::Sha256 sha;
        sha.update(file);
        if (form.sha256 != vwheel::to_hex(sha.finish())) die("the SHA-256 differs from the bytes given");
        temp_dir = form.file.parent_path();
      } else if (!form.filename.empty() || form.size != 0) {
        die("a file without a `content` part");
      }
    } else if (!receiver.failed()) {
      die("finish failed without a reason");
    }
    res.status = 200;
  });
  ChunkedStream stream(request.str(), data[0] * 2654435761U);
  bool closed = false;
  (void)server.process_request(stream, true, closed, nullptr);
  if (!temp_dir.empty() && fs::exists(temp_dir)) die("the temporary folder outlived the receiver");
  return 0;
}
