// The HTTP client's downloads against real sockets on 127.0.0.1: many at once, hash and size
// checks, retries, resumed part files, and (raw server) dropped connections, truncated bodies,
// stalls, and downloads held in memory across a resume.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include "client_servers.hpp"

namespace vwheel::http {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

class Download : public ::testing::Test {
 protected:
  static std::string content(int i) {
    return make_data(20000 + static_cast<std::size_t>(i) * 997, static_cast<unsigned>(i));
  }

  void SetUp() override {
    server.svr.Get("/files/(\\d+)", [this](const httplib::Request& req, httplib::Response& res) {
      ++file_hits;
      res.set_content(content(std::stoi(req.matches[1].str())), "application/octet-stream");
    });
    server.svr.Get("/gone", [this](const httplib::Request&, httplib::Response& res) {
      ++gone_hits;
      res.status = 404;
      res.set_content("gone", "text/plain");
    });
    server.svr.Get("/once500", [this](const httplib::Request&, httplib::Response& res) {
      if (++once_hits == 1) {
        res.status = 500;
        res.set_content("oops", "text/plain");
        return;
      }
      res.set_content(content(3), "application/octet-stream");
    });
    server.svr.Get("/ranged", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex);
      range_headers.push_back(req.get_header_value("Range"));
      res.set_content(content(5), "application/octet-stream");
    });
    server.start();
  }

  void expect_no_file(const fs::path& dest) { EXPECT_FALSE(fs::exists(dest)) << dest; }

  // The handlers' state before the server, so that it outlives the server's threads.
  std::atomic<int> file_hits{0}, gone_hits{0}, once_hits{0};
  std::mutex mutex;
  std::vector<std::string> range_headers;
  HttpServer server;
  TempDir tmp;
};

TEST_F(Download, AWriteThatFailsIsTheEnvironmentsError) {
  // Over the file-size limit (SIGXFSZ ignored, as vwheel does): the download fails naming the
  // part file and the reason, as an environment error (exit 3, like a full disk), not as the
  // server's; nothing is left.
  struct sigaction ignore {
  }, old_action{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &old_action), 0);
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit low = old_limit;
  low.rlim_cur = 8192;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &low), 0);
  auto client = make_client();
  const auto dest = tmp.path / "f3.whl";
  auto rs = client.download({{server.url("/files/3"), dest, sha256_hex(content(3)), std::nullopt}});
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  ::sigaction(SIGXFSZ, &old_action, nullptr);
  ASSERT_EQ(rs.size(), 1U);
  ASSERT_FALSE(rs[0]);
  EXPECT_EQ(rs[0].error().kind, ErrorKind::environment) << rs[0].error().message;
  EXPECT_TRUE(contains(rs[0].error().message, "cannot write")) << rs[0].error().message;
  EXPECT_TRUE(contains(rs[0].error().message, "File too large")) << rs[0].error().message;
  expect_no_file(dest);
  EXPECT_FALSE(fs::exists(fs::path(dest.string() + ".part")));
  // A server's refusal stays the input's error.
  auto gone = client.download({{server.url("/gone"), tmp.path / "gone.whl", std::nullopt, std::nullopt}});
  ASSERT_FALSE(gone[0]);
  EXPECT_EQ(gone[0].error().kind, ErrorKind::input) << gone[0].error().message;
}

TEST_F(Download, ThirtyFilesAtOnce) {
  auto client = make_client();
  std::vector<DownloadRequest> reqs;
  for (int i = 0; i < 30; ++i) {
    const auto c = content(i);
    reqs.push_back({server.url("/files/" + std::to_string(i)), tmp.path / "sub" / fmt::format("f{}.whl", i),
                    sha256_hex(c), i % 2 == 0 ? std::optional<std::uint64_t>(c.size()) : std::nullopt});
  }
  std::vector<int> done_calls(30, 0);
  std::vector<std::uint64_t> last_progress(30, 0);
  const auto caller = std::this_thread::get_id();
  bool other_thread = false;
  auto rs = client.download(
      reqs,
      [&](const Progress& p) {
        other_thread |= std::this_thread::get_id() != caller;
        last_progress.at(p.index) = p.done;
      },
      [&](std::size_t i, const Result<Downloaded>& r) {
        other_thread |= std::this_thread::get_id() != caller;
        ++done_calls.at(i);
        EXPECT_TRUE(r);
        if (r) {
          EXPECT_TRUE(fs::exists(r->path));  // already in place when reported
        }
      });
  EXPECT_FALSE(other_thread);
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(rs[i]) << rs[i].error().message;
    const auto c = content(i);
    EXPECT_EQ(rs[i]->path, reqs[i].dest);
    EXPECT_EQ(rs[i]->sha256, sha256_hex(c));
    EXPECT_EQ(rs[i]->size, c.size());
    EXPECT_EQ(rs[i]->attempts, 1U);
    EXPECT_FALSE(rs[i]->resumed);
    EXPECT_EQ(read_all(reqs[i].dest), c);
    EXPECT_FALSE(fs::exists(reqs[i].dest.string() + ".part"));
    EXPECT_EQ(done_calls[i], 1);
    EXPECT_EQ(last_progress[i], c.size());
  }
  EXPECT_EQ(file_hits, 30);
}

// A callback that throws ends download() with its exception while other transfers still run:
// none of them may stay in libcurl's multi handle pointing at its destroyed job, or the next
// download on the same client would drive them (a use after free under ASan).
TEST_F(Download, AnExceptionFromACallbackLeavesTheClientUsable) {
  auto client = make_client();
  std::vector<DownloadRequest> reqs;
  for (int i = 0; i < 8; ++i) {
    reqs.push_back({server.url("/files/" + std::to_string(i)), tmp.path / "a" / fmt::format("f{}.whl", i),
                    sha256_hex(content(i)), std::nullopt});
  }
  EXPECT_THROW(
      (void)client.download(reqs, {}, [](std::size_t, const Result<Downloaded>&) { throw std::runtime_error("x"); }),
      std::runtime_error);
  for (auto& r : reqs) r.dest = tmp.path / "b" / r.dest.filename();
  auto rs = client.download(reqs);
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(rs[i]) << rs[i].error().message;
    EXPECT_EQ(read_all(reqs[i].dest), content(i));
  }
}

TEST_F(Download, HashMismatchLeavesNothing) {
  auto client = make_client();
  const auto dest = tmp.path / "bad.whl";
  const std::string wrong(64, 'a');
  auto rs = client.download({{server.url("/files/1"), dest, wrong}});
  ASSERT_FALSE(rs[0]);
  const auto& msg = rs[0].error().message;
  EXPECT_TRUE(contains(msg, server.url("/files/1"))) << msg;
  EXPECT_TRUE(contains(msg, wrong)) << msg;
  EXPECT_TRUE(contains(msg, sha256_hex(content(1)))) << msg;
  EXPECT_EQ(file_hits, 2);  // retried once
  expect_no_file(dest);
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, SizeMismatchLeavesNothing) {
  auto client = make_client();
  const auto dest = tmp.path / "bad.whl";
  auto rs = client.download({{server.url("/files/1"), dest, std::nullopt, 5}});
  ASSERT_FALSE(rs[0]);
  EXPECT_TRUE(contains(rs[0].error().message, "size")) << rs[0].error().message;
  expect_no_file(dest);
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, UppercaseHashAccepted) {
  auto client = make_client();
  std::string h = sha256_hex(content(2));
  for (auto& c : h) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto rs = client.download({{server.url("/files/2"), tmp.path / "f.whl", h}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
}

TEST_F(Download, RetriesAfter500) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/once500"), dest, sha256_hex(content(3))}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_EQ(rs[0]->attempts, 2U);
  EXPECT_EQ(read_all(dest), content(3));  // the error page was not written
}

TEST_F(Download, NotFoundIsNotRetried) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/gone"), dest}});
  ASSERT_FALSE(rs[0]);
  EXPECT_TRUE(contains(rs[0].error().message, "404")) << rs[0].error().message;
  EXPECT_TRUE(contains(rs[0].error().message, server.url("/gone"))) << rs[0].error().message;
  EXPECT_EQ(gone_hits, 1);
  expect_no_file(dest);
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, ResumesAnExistingPartFile) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  const auto c = content(5);
  std::ofstream(dest.string() + ".part", std::ios::binary) << c.substr(0, 12345);
  auto rs = client.download({{server.url("/ranged"), dest, sha256_hex(c), c.size()}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_TRUE(rs[0]->resumed);
  EXPECT_EQ(read_all(dest), c);
  ASSERT_EQ(range_headers.size(), 1U);
  EXPECT_EQ(range_headers[0], "bytes=12345-");
  expect_no_file(dest.string() + ".part");
}

TEST_F(Download, StalePartFileIsReplaced) {
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  const auto c = content(5);
  std::ofstream(dest.string() + ".part", std::ios::binary) << "garbage that is not the start";
  auto rs = client.download({{server.url("/ranged"), dest, sha256_hex(c)}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;  // the mismatch is retried once, from the start
  EXPECT_FALSE(rs[0]->resumed);
  EXPECT_EQ(read_all(dest), c);
}

TEST_F(Download, FromFileUrl) {
  auto client = make_client();
  const auto src = tmp.path / "src.whl";
  const auto c = content(9);
  std::ofstream(src, std::ios::binary) << c;
  const auto dest = tmp.path / "out" / "dst.whl";
  auto rs = client.download({{"file://" + src.string(), dest, sha256_hex(c), c.size()}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_EQ(read_all(dest), c);
}

/// A server of `c` (ETag "x1") that drops the first connection after `dropped_at` bytes and
/// answers a range request with the rest; with `refuse_first`, the very first request gets a 503.
RawServer::Handler drops_then_resumes(const std::string& c, std::size_t dropped_at, bool refuse_first = false) {
  return [&c, dropped_at, refuse_first](RawServer&, int fd, const std::string& req, int index) {
    if (refuse_first && index == 0) {
      send_all(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    const long long start = range_start(req);
    if (start < 0) {
      send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nAccept-Ranges: bytes\r\nETag: \"x1\"\r\n"
                               "Connection: close\r\n\r\n",
                               c.size()));
      send_all(fd, std::string_view(c).substr(0, dropped_at));  // then the connection drops
      return;
    }
    const auto s = static_cast<std::size_t>(start);
    send_all(fd, fmt::format("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {}-{}/{}\r\nContent-Length: {}\r\n"
                             "Connection: close\r\n\r\n",
                             s, c.size() - 1, c.size(), c.size() - s));
    send_all(fd, std::string_view(c).substr(s));
  };
}

TEST(DownloadRaw, DroppedConnectionResumesWithRange) {
  const auto c = make_data(50000, 11);
  RawServer server(drops_then_resumes(c, 20000));
  TempDir tmp;
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/f.whl"), dest, sha256_hex(c)}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_TRUE(rs[0]->resumed);
  EXPECT_EQ(rs[0]->attempts, 2U);
  EXPECT_EQ(read_all(dest), c);
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2U);
  EXPECT_EQ(range_start(reqs[1]), 20000);
  EXPECT_TRUE(contains(reqs[1], "If-Range: \"x1\"")) << reqs[1];
}

TEST(DownloadRaw, TruncatedThenRangeIgnoredRestartsFromZero) {
  const auto c = make_data(30000, 12);
  RawServer server([&](RawServer&, int fd, const std::string&, int index) {
    send_all(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", c.size()));
    send_all(fd, index == 0 ? std::string_view(c).substr(0, 1000) : std::string_view(c));
  });
  TempDir tmp;
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/f.whl"), dest, sha256_hex(c)}});
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  EXPECT_FALSE(rs[0]->resumed);
  EXPECT_EQ(rs[0]->attempts, 2U);
  EXPECT_EQ(read_all(dest), c);
  EXPECT_EQ(range_start(server.requests().at(1)), 1000);
}

TEST(DownloadRaw, AlwaysTruncatedFailsWithCause) {
  RawServer server([&](RawServer&, int fd, const std::string&, int) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n");
    send_all(fd, std::string(100, 'x'));
  });
  TempDir tmp;
  auto client = make_client();
  const auto dest = tmp.path / "f.whl";
  auto rs = client.download({{server.url("/f.whl"), dest}});
  ASSERT_FALSE(rs[0]);
  const auto& msg = rs[0].error().message;
  EXPECT_TRUE(contains(msg, server.url("/f.whl"))) << msg;
  EXPECT_TRUE(contains(msg, "3 attempts")) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_FALSE(fs::exists(dest));
}

TEST(DownloadRaw, TruncatedGetIsRetried) {
  RawServer server([&](RawServer&, int fd, const std::string&, int index) {
    if (index == 0) {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\nshort");
    } else {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nfull");
    }
  });
  auto client = make_client();
  auto r = client.get({server.url("/page")});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->body, "full");
}

TEST(DownloadRaw, StallIsRetriedThenAClearError) {
  RawServer server([&](RawServer& s, int fd, const std::string&, int) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n");
    send_all(fd, std::string(100, 'x'));
    s.sleep(8s);
  });
  TempDir tmp;
  auto o = test_options();
  o.retries = 1;
  auto client = make_client(o);
  const auto dest = tmp.path / "f.whl";
  const auto t0 = std::chrono::steady_clock::now();
  auto rs = client.download({{server.url("/f.whl"), dest}});
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(rs[0]);
  const auto& msg = rs[0].error().message;
  EXPECT_TRUE(contains(msg, "stalled")) << msg;
  EXPECT_TRUE(contains(msg, "2 attempts")) << msg;
  EXPECT_LT(elapsed, 6s);
  EXPECT_EQ(server.requests().size(), 2U);
  EXPECT_FALSE(fs::exists(dest));
}

TEST(DownloadRaw, ConnectionRefusedIsRetried) {
  int port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    ::close(fd);  // nothing listens there now
  }
  TempDir tmp;
  auto client = make_client();
  const auto url = fmt::format("http://127.0.0.1:{}/f.whl", port);
  auto rs = client.download({{url, tmp.path / "f.whl"}});
  ASSERT_FALSE(rs[0]);
  EXPECT_TRUE(contains(rs[0].error().message, url)) << rs[0].error().message;
  EXPECT_TRUE(contains(rs[0].error().message, "3 attempts")) << rs[0].error().message;
}

// Bytes in the file from `from` to its end (SEEK_DATA/SEEK_HOLE: what was written, not holes).
std::uint64_t data_bytes_after(const fs::path& p, std::uint64_t from) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + p.string());
  const auto end = static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END));
  std::uint64_t data = 0;
  for (auto at = static_cast<off_t>(from); static_cast<std::uint64_t>(at) < end;) {
    const off_t start = ::lseek(fd, at, SEEK_DATA);
    if (start < 0) break;  // only a hole is left
    const off_t stop = ::lseek(fd, start, SEEK_HOLE);
    data += static_cast<std::uint64_t>(stop - start);
    at = stop;
  }
  ::close(fd);
  return data;
}

// A reader that reads each byte once (an install unpacking a download it does not keep) takes
// the bytes from memory and gives them back, so they are never written; a dropped connection
// halfway (after a 503, with `refused_first`) must not end that: before, each attempt closed the
// part file, which wrote what was held and stopped the holding, so everything after the resume
// went to the disk.
void expect_held_through_a_resume(bool refused_first) {
  const std::size_t mib = std::size_t{1} << 20;
  const auto c = make_data(6 * mib + 123, 21);
  const std::size_t dropped_at = 3 * mib + 500;
  RawServer server(drops_then_resumes(c, dropped_at, refused_first));
  TempDir tmp;
  const auto dest = tmp.path / "f.whl";
  const auto part = fs::path(dest.string() + ".part");
  DownloadRequest request{server.url("/f.whl"), dest, sha256_hex(c), c.size()};
  request.growing = std::make_shared<GrowingFile>();
  GrowingFile& growing = *request.growing;
  const auto generation = growing.generation();
  growing.read_once(generation);
  std::string got;
  std::string failure;
  std::thread reader([&] {
    int fd = -1;
    const auto read_file = [&](char* buf, std::size_t len, std::uint64_t offset) -> Result<void> {
      if (fd < 0) fd = ::open(part.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::pread(fd, buf, len, static_cast<off_t>(offset)) != static_cast<ssize_t>(len)) {
        return fail("cannot read the part file");
      }
      return {};
    };
    std::string buf(64 << 10, '\0');
    for (std::uint64_t at = 0; at < c.size() && failure.empty();) {
      const auto len = std::min<std::uint64_t>(buf.size(), c.size() - at);
      if (auto r = growing.read(buf.data(), len, at, generation, read_file); !r) {
        failure = r.error().message;
        break;
      }
      got.append(buf.data(), len);
      growing.release(at, at + len, generation);
      at += len;
    }
    growing.done_reading(generation);
    if (fd >= 0) ::close(fd);
  });
  auto client = make_client();
  auto rs = client.download({request});
  growing.finish(rs[0] ? Result<void>{} : fail(rs[0].error().message));
  reader.join();
  ASSERT_TRUE(rs[0]) << rs[0].error().message;
  ASSERT_TRUE(failure.empty()) << failure;
  EXPECT_EQ(rs[0]->attempts, refused_first ? 3U : 2U);
  EXPECT_TRUE(rs[0]->resumed);
  EXPECT_EQ(got, c);
  // What the reader gave back was not written after the resume either (all of it, unless the
  // reader was kept from running for GrowingFile::kStallMs, which a loaded machine may do once).
  const auto resumed_part = c.size() - dropped_at;
  EXPECT_LT(data_bytes_after(dest, dropped_at), resumed_part / 2) << "the resumed bytes went to the disk";
}

TEST(DownloadRaw, AResumedDownloadIsStillHeldInMemory) { expect_held_through_a_resume(false); }

TEST(DownloadRaw, ADownloadRefusedFirstIsStillHeldInMemory) { expect_held_through_a_resume(true); }

}  // namespace
}  // namespace vwheel::http
