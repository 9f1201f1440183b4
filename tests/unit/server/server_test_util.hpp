#pragma once
// The server's tests over real sockets (test_server.cpp, test_server_upload.cpp): raw requests,
// a snapshot of a folder, and a fixture that starts a server on a free port with a client.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

// Debian's shared libcpp-httplib is built with these (`pkg-config --cflags cpp-httplib`), and the
// classes' layout depends on them; the test links it through vwheel_server but does not get its
// compile flags.
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

#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/server/server.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::server::test {
namespace fs = std::filesystem;

namespace fs = std::filesystem;

inline void write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// A connected TCP socket to the server (-1 when the connection is refused).
inline int connect_to(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// Sends `request` as is and reads one response (until the connection closes or the
// Content-Length is complete).
inline std::string raw_request(int port, const std::string& request) {
  const int s = connect_to(port);
  if (s < 0) return "<connect failed>";
  timeval tv{5, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(s, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and stop reading early
    sent += static_cast<std::size_t>(n);
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(s, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    const auto end = out.find("\r\n\r\n");
    if (end == std::string::npos) continue;
    std::string head = out.substr(0, end);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto cl = head.find("\r\ncontent-length:");
    const bool no_body = head.rfind("http/1.1 304", 0) == 0 || head.rfind("http/1.1 204", 0) == 0;
    const std::size_t length = cl == std::string::npos || no_body ? 0 : std::stoul(head.substr(cl + 17));
    if (out.size() >= end + 4 + length) break;
  }
  ::close(s);
  return out;
}

inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return -1;
  return std::stoi(response.substr(9, 3));
}

// Every file below `dir` with its size and modification time.
inline std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto rel = fs::relative(e.path(), dir).string();
    if (e.is_regular_file())
      out[rel] = {e.file_size(), e.last_write_time().time_since_epoch().count()};
    else
      out[rel] = {0, 0};
  }
  return out;
}

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vwheel-server-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    client_.reset();  // closes the keep-alive connection, so the server's worker is free at once
    server_.reset();
    fs::remove_all(dir_);
  }

  void start(ServeOptions options) {
    options.port = 0;
    options.threads = 4;
    auto s = Server::start(options);
    ASSERT_TRUE(s) << s.error().message;
    server_ = std::move(*s);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_url_encode(false);
    client_->set_keep_alive(true);
  }

  fs::path dir_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace vwheel::server::test
