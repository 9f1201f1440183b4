// Uploads (`twine upload`'s multipart form) into a folder of wheels served over real sockets:
// what is accepted, what is refused and why, and that a refused upload leaves the folder as it was.

#include <gtest/gtest.h>

#include "server_test_util.hpp"

namespace vwheel::server {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------------------------
// Uploads into a folder of wheels.

std::string make_wheel_bytes(const fs::path& dir, const std::string& filename, const std::string& variant_json = {}) {
  const auto dash = filename.find('-');
  const auto dash2 = filename.find('-', dash + 1);
  const std::string name = filename.substr(0, dash);
  const std::string version = filename.substr(dash + 1, dash2 - dash - 1);
  const std::string di = name + "-" + version + ".dist-info";
  std::vector<std::pair<std::string, std::string>> files = {
      {name + "/__init__.py", "VALUE = 1\n"},
      {di + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"},
      {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
  };
  if (!variant_json.empty()) files.emplace_back(di + "/variant.json", variant_json);
  zip::WritePlan plan;
  std::string record;
  for (auto& [member, data] : files) {
    record += wheel::record_line(member, data);
    zip::NewMember m;
    m.name = member;
    m.data = data;
    plan.members.emplace_back(std::move(m));
  }
  record += di + "/RECORD,,\n";
  zip::NewMember r;
  r.name = di + "/RECORD";
  r.data = record;
  plan.members.emplace_back(std::move(r));
  fs::create_directories(dir);
  const auto path = dir / filename;
  auto ok = zip::write_archive(nullptr, plan, path);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
  auto bytes = read_file(path);
  fs::remove(path);
  return bytes ? *bytes : std::string();
}

const char* kVariantX =
    R"({"default-priorities": {"namespace": ["x86_64"]}, "variants": {"v3": {"x86_64": {"level": ["v3"]}}}})";
const char* kVariantXConflict =
    R"({"default-priorities": {"namespace": ["x86_64"]}, "variants": {"v3": {"x86_64": {"level": ["v4"]}}}})";

std::string multipart(const std::string& boundary, const std::vector<std::pair<std::string, std::string>>& fields,
                      const std::string& filename, const std::string& content) {
  std::string body;
  for (const auto& [name, value] : fields) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
  }
  if (!filename.empty()) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"content\"; filename=\"" + filename +
            "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n";
  }
  body += "--" + boundary + "--\r\n";
  return body;
}

class UploadTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    wheels_ = dir_ / "wheels";
    fs::create_directories(wheels_);
    const auto plain = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-py3-none-any.whl");
    write(wheels_ / "pkg-1.0-py3-none-any.whl", plain);
    ServeOptions options;
    options.wheels = wheels_;
    options.upload_token = "s3cret";
    options.max_upload_size = 64 * 1024;
    start(options);
  }

  httplib::Result upload(const std::string& filename, const std::string& content,
                         std::vector<std::pair<std::string, std::string>> extra = {},
                         const std::string& auth = "Bearer s3cret", const std::string& path = "/legacy/") {
    std::vector<std::pair<std::string, std::string>> fields = {{":action", "file_upload"},
                                                               {"protocol_version", "1"},
                                                               {"name", "pkg"},
                                                               {"version", "1.0"},
                                                               {"filetype", "bdist_wheel"},
                                                               {"pyversion", "py3"},
                                                               {"sha256_digest", sha256_hex(content)}};
    for (auto& [k, v] : extra) {
      bool replaced = false;
      for (auto& f : fields) {
        if (f.first == k) {
          f.second = v;
          replaced = true;
        }
      }
      if (!replaced) fields.emplace_back(k, v);
    }
    httplib::Headers headers;
    if (!auth.empty()) headers.emplace("Authorization", auth);
    return client_->Post(path, headers, multipart("XyZzY", fields, filename, content),
                         "multipart/form-data; boundary=XyZzY");
  }

  fs::path wheels_;
};

TEST_F(UploadTest, AuthIsRequired) {
  const auto before = snapshot(dir_);
  const auto bytes = make_wheel_bytes(dir_ / "tmp", "pkg-2.0-py3-none-any.whl");
  auto none = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_NE(none->get_header_value("WWW-Authenticate").find("Basic"), std::string::npos);
  auto wrong = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "Bearer nope");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  // base64("__token__:wrong")
  auto basic_wrong = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "Basic X190b2tlbl9fOndyb25n");
  ASSERT_TRUE(basic_wrong);
  EXPECT_EQ(basic_wrong->status, 403);
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, AcceptsAWheelWithBasicAuthAndRefusesItTwice) {
  const auto bytes = make_wheel_bytes(dir_ / "tmp", "pkg-2.0-py3-none-any.whl");
  // base64("__token__:s3cret")
  auto ok = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, "Basic X190b2tlbl9fOnMzY3JldA==", "/");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_TRUE(fs::exists(wheels_ / "pkg-2.0-py3-none-any.whl"));
  EXPECT_EQ(read_file(wheels_ / "pkg-2.0-py3-none-any.whl").value_or(""), bytes);
  auto page = client_->Get("/simple/pkg/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("pkg-2.0-py3-none-any.whl"), std::string::npos) << page->body;
  // No temporary files are left behind.
  EXPECT_TRUE(fs::is_empty(wheels_ / ".vwheel-upload"));

  const auto before = snapshot(dir_);
  auto again = upload("pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, RefusesBadFormsAndFiles) {
  const auto bytes = make_wheel_bytes(dir_ / "tmp", "pkg-2.0-py3-none-any.whl");
  const auto before = snapshot(dir_);
  struct Case {
    std::string filename;
    std::string content;
    std::vector<std::pair<std::string, std::string>> extra;
    int status;
  };
  const std::vector<Case> cases = {
      {"../pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, 400},
      {"sub/pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, 400},
      {".pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}}, 400},
      {"pkg-2.0.whl", bytes, {{"version", "2.0"}}, 400},
      {"pkg-2.0-py3-none-any.exe", bytes, {{"version", "2.0"}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}, {"sha256_digest", std::string(64, '0')}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "3.0"}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}, {"name", "other"}}, 400},
      {"pkg-2.0-py3-none-any.whl", bytes, {{"version", "2.0"}, {":action", "remove_file"}}, 400},
      {"pkg-2.0-py3-none-any.whl", "not a zip at all", {{"version", "2.0"}}, 400},
      {"pkg-2.0-py3-none-any.whl", std::string(70 * 1024, 'x'), {{"version", "2.0"}}, 413},
      {"", "", {{"version", "2.0"}}, 400},
  };
  for (const auto& c : cases) {
    auto r = upload(c.filename, c.content, c.extra);
    ASSERT_TRUE(r) << c.filename;
    EXPECT_EQ(r->status, c.status) << c.filename << ": " << r->body;
    EXPECT_EQ(r->body.find('\n'), r->body.size() - 1) << "one line: " << r->body;
    EXPECT_EQ(r->body.find(".vwheel-upload"), std::string::npos) << "no temporary paths: " << r->body;
  }
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, RefusesMalformedMultipart) {
  const auto before = snapshot(dir_);
  const int port = server_->port();
  const std::vector<std::string> bodies = {
      "--b\r\nContent-Disposition: form-data; name=\":action\"\r\n\r\nfile_upload\r\n--b\r\nbroken",
      "garbage without any boundary",
      "--b\r\nContent-Disposition: form-data; name=\"content\"; filename=\"pkg-3.0-py3-none-any.whl\"\r\n\r\nPK",
      "--b\r\nNo-Disposition: x\r\n\r\nvalue\r\n--b--\r\n",
  };
  for (const auto& body : bodies) {
    const auto response = raw_request(port,
                                      "POST /legacy/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                                      "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: " +
                                          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    EXPECT_EQ(status_of(response), 400) << body << "\n" << response;
  }
  const auto no_boundary =
      raw_request(port,
                  "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                  "Content-Type: multipart/form-data\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  EXPECT_EQ(status_of(no_boundary), 400) << no_boundary;
  const auto not_multipart =
      raw_request(port,
                  "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                  "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
  EXPECT_EQ(status_of(not_multipart), 400) << not_multipart;
  const auto elsewhere =
      raw_request(port,
                  "POST /simple/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                  "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(elsewhere), 404) << elsewhere;
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, VariantWheelsMustMerge) {
  const auto v3 = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-py3-none-any-v3.whl", kVariantX);
  auto ok = upload("pkg-1.0-py3-none-any-v3.whl", v3);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  auto variants = client_->Get("/files/pkg/pkg-1.0-variants.json");
  ASSERT_TRUE(variants);
  EXPECT_EQ(variants->status, 200);
  EXPECT_EQ(variants->get_header_value("Content-Type"), "application/json");
  EXPECT_NE(variants->body.find("\"v3\""), std::string::npos) << variants->body;

  // Same label, other properties, another wheel of the same version: cannot be merged.
  const auto before = snapshot(dir_);
  const auto conflict = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-cp312-none-any-v3.whl", kVariantXConflict);
  auto refused = upload("pkg-1.0-cp312-none-any-v3.whl", conflict);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  EXPECT_EQ(snapshot(dir_), before);

  // An invalid variant.json.
  const auto broken = make_wheel_bytes(dir_ / "tmp", "pkg-1.0-cp311-none-any-v3.whl", "{not json");
  auto invalid = upload("pkg-1.0-cp311-none-any-v3.whl", broken);
  ASSERT_TRUE(invalid);
  EXPECT_EQ(invalid->status, 400) << invalid->body;
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(UploadTest, ExpectContinueIsAnsweredBeforeTheBody) {
  const int port = server_->port();
  const std::string head =
      "POST /legacy/ HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
      "Content-Length: 1000000\r\nExpect: 100-continue\r\nConnection: close\r\n";
  // No body is sent: the refusal must come from the headers alone.
  EXPECT_EQ(status_of(raw_request(port, head + "\r\n")), 401);
  EXPECT_EQ(status_of(raw_request(port, head + "Authorization: Bearer nope\r\n\r\n")), 403);
  const auto big = raw_request(port,
                               "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                               "Content-Length: 99999999999\r\nExpect: 100-continue\r\nAuthorization: Bearer s3cret\r\n"
                               "Connection: close\r\n\r\n");
  EXPECT_EQ(status_of(big), 413) << big;
  const auto go = raw_request(port, head + "Authorization: Bearer s3cret\r\n\r\n");
  EXPECT_EQ(go.rfind("HTTP/1.1 100 Continue\r\n", 0), 0U) << go;
}

TEST_F(UploadTest, ReadersNeverSeeAHalfBuiltPage) {
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> bad{0};
  std::string first_bad;
  std::mutex bad_mutex;
  auto reader = [&] {
    httplib::Client c("127.0.0.1", server_->port());
    while (!done) {
      auto r = c.Get("/simple/pkg/", {{"Accept", "application/vnd.pypi.simple.v1+json"}});
      bool ok = r && r->status == 200;
      if (ok) {
        auto page = nlohmann::json::parse(r->body, nullptr, false);
        ok = !page.is_discarded() && page["name"] == "pkg" && page["files"].is_array() && !page["files"].empty();
      }
      ++reads;
      if (!ok) {
        ++bad;
        std::lock_guard lock(bad_mutex);
        if (first_bad.empty()) first_bad = r ? std::to_string(r->status) + " " + r->body : "no response";
      }
    }
  };
  std::thread t1(reader);
  std::thread t2(reader);
  for (int i = 0; i < 8; ++i) {
    const std::string version = "3." + std::to_string(i);
    const std::string filename = "pkg-" + version + "-py3-none-any.whl";
    const auto bytes = make_wheel_bytes(dir_ / "tmp", filename);
    auto r = upload(filename, bytes, {{"version", version}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
  }
  done = true;
  t1.join();
  t2.join();
  EXPECT_GT(reads.load(), 8);
  EXPECT_EQ(bad.load(), 0) << first_bad;
  auto page = client_->Get("/simple/pkg/");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("pkg-3.7-py3-none-any.whl"), std::string::npos);
}

}  // namespace
}  // namespace vwheel::server
