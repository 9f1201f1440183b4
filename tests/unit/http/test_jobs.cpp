// Job's curl callbacks: an exception thrown below them is kept for the loop instead of unwinding
// through libcurl's C frames, and the attempt is aborted (the callback answers 0 bytes taken).

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include "http/jobs.hpp"

namespace vwheel::http::detail {
namespace {

class ThrowingJob final : public Job {
 public:
  ThrowingJob(const CurlApi& api, const Options& options) : Job(api, options, "http://127.0.0.1/x") {}
  Result<bool> begin(CURL*) override { return true; }
  Verdict end(CURL*, CURLcode) override { return Verdict::done; }
  void set_error(Error) override {}
  bool on_body(std::string_view data) override {
    if (data == "throw") throw std::bad_alloc();
    taken += data;
    return true;
  }
  std::string taken;
};

TEST(JobCallbacks, AnExceptionInOnBodyIsKeptAndAbortsTheAttempt) {
  const CurlApi api;
  const Options options;
  ThrowingJob job(api, options);
  std::string ok = "bytes";
  EXPECT_EQ(Job::write_cb(ok.data(), 1, ok.size(), &job), ok.size());
  EXPECT_EQ(job.taken, "bytes");
  EXPECT_FALSE(job.escaped_);

  std::string bad = "throw";
  EXPECT_EQ(Job::write_cb(bad.data(), 1, bad.size(), &job), 0U);
  ASSERT_TRUE(job.escaped_);
  EXPECT_THROW(std::rethrow_exception(job.escaped_), std::bad_alloc);
  EXPECT_EQ(job.taken, "bytes");
}

TEST(JobCallbacks, HeaderLinesAreTakenWhole) {
  const CurlApi api;
  const Options options;
  ThrowingJob job(api, options);
  std::string line = "HTTP/1.1 200 OK\r\n";
  EXPECT_EQ(Job::header_cb(line.data(), 1, line.size(), &job), line.size());
  EXPECT_FALSE(job.escaped_);
}

// --trusted-host HOST or HOST:PORT (issue 54).
TEST(TrustedHost, MatchesTheHostOrTheHostAndPort) {
  EXPECT_TRUE(is_trusted_host("https://Pkgs.Example:8443/simple/", {"pkgs.example"}));
  EXPECT_TRUE(is_trusted_host("https://pkgs.example:8443/simple/", {"pkgs.example:8443"}));
  EXPECT_FALSE(is_trusted_host("https://pkgs.example:9443/simple/", {"pkgs.example:8443"}));
  EXPECT_FALSE(is_trusted_host("https://other.example/simple/", {"pkgs.example"}));
  EXPECT_FALSE(is_trusted_host("https://pkgs.example.evil/", {"pkgs.example"}));
  EXPECT_TRUE(is_trusted_host("https://[::1]:8443/", {"[::1]"}));
  EXPECT_FALSE(is_trusted_host("https://pkgs.example/", {}));
}

// A TLS failure is one line naming the host and the reason read from curl's error text.
TEST(TlsFailure, NamesTheHostAndTheReason) {
  auto m = tls_failure(CURLE_PEER_FAILED_VERIFICATION, "h:443", "SSL certificate problem: certificate has expired");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, "TLS error with h:443: its certificate has expired (SSL certificate problem: certificate has expired)");
  m = tls_failure(CURLE_PEER_FAILED_VERIFICATION, "h:443",
                  "SSL certificate problem: unable to get local issuer certificate");
  ASSERT_TRUE(m);
  EXPECT_NE(m->find("signed by an unknown CA"), std::string::npos) << *m;
  m = tls_failure(CURLE_PEER_FAILED_VERIFICATION, "h:443",
                  "SSL: no alternative certificate subject name matches target host name 'h'");
  ASSERT_TRUE(m);
  EXPECT_NE(m->find("is for another name"), std::string::npos) << *m;
  m = tls_failure(CURLE_SSL_CACERT_BADFILE, "h:443", "error setting certificate file: /x");
  ASSERT_TRUE(m);
  EXPECT_NE(m->find("cannot read the CA bundle"), std::string::npos) << *m;
  EXPECT_FALSE(tls_failure(CURLE_COULDNT_CONNECT, "h:443", "Connection refused"));
}

}  // namespace
}  // namespace vwheel::http::detail
