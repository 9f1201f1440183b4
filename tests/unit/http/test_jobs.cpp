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

}  // namespace
}  // namespace vwheel::http::detail
