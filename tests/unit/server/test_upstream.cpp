#include <gtest/gtest.h>

#include <string>

#include "index/pages.hpp"
#include "server/upstream.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::server {
namespace {

const std::string kSha(64, 'a');
const std::string kMetaSha(64, 'b');

simple::ProjectPage upstream_page() {
  // What the client parsed from an upstream whose URL carries credentials: the file URLs have them.
  const std::string html = "<a href=\"../../files/torch-2.13.0-py3-none-any-cu128.whl#sha256=" + std::string(64, 'A') +
                           "\" data-requires-python=\"&gt;=3.9\" data-core-metadata=\"sha256=" + kMetaSha +
                           "\">torch-2.13.0-py3-none-any-cu128.whl</a>\n"
                           "<a href=\"https://cdn.example/torch-2.13.0-variants.json#sha256=" +
                           kSha +
                           "\">torch-2.13.0-variants.json</a>\n"
                           "<a href=\"../../files/torch-2.13.0.tar.gz\">torch-2.13.0.tar.gz</a>\n"
                           "<a href=\"../../files/torch-2.12.0-py3-none-any.whl#sha256=" +
                           kSha +
                           "\" data-core-metadata=\"true\" data-yanked=\"bad\">torch-2.12.0-py3-none-any.whl</a>\n";
  auto page = simple::parse_html_page(html, "https://alice:s3cret@upstream.example/simple/torch/");
  EXPECT_TRUE(page) << page.error().message;
  return *page;
}

TEST(ProxyPage, FileUrlsPointToThisServerByHash) {
  const auto proxied = proxy_page(upstream_page(), "torch");
  ASSERT_EQ(proxied.page.files.size(), 3U);
  ASSERT_EQ(proxied.files.size(), 3U);
  const auto& wheel = proxied.page.files[0];
  EXPECT_EQ(wheel.url, "/files/torch/" + kSha + "/torch-2.13.0-py3-none-any-cu128.whl");
  EXPECT_EQ(wheel.sha256, kSha);  // upper-case hex from the upstream, lower-case here
  EXPECT_EQ(wheel.requires_python, ">=3.9");
  EXPECT_EQ(wheel.core_metadata_sha256, kMetaSha);
  // Where each file is fetched from stays on this side.
  EXPECT_EQ(proxied.files[0].url, "https://alice:s3cret@upstream.example/files/torch-2.13.0-py3-none-any-cu128.whl");
  EXPECT_EQ(proxied.files[0].metadata_sha256, kMetaSha);
  EXPECT_EQ(proxied.files[1].url, "https://cdn.example/torch-2.13.0-variants.json");
  EXPECT_EQ(proxied.page.files[1].url, "/files/torch/" + kSha + "/torch-2.13.0-variants.json");
}

TEST(ProxyPage, FilesWithoutSha256AreLeftOut) {
  const auto proxied = proxy_page(upstream_page(), "torch");
  ASSERT_EQ(proxied.left_out.size(), 1U);
  EXPECT_EQ(proxied.left_out[0], "torch-2.13.0.tar.gz");
}

TEST(ProxyPage, MetadataWithoutItsHashIsNotOffered) {
  const auto proxied = proxy_page(upstream_page(), "torch");
  const auto& old = proxied.page.files[2];
  EXPECT_EQ(old.filename, "torch-2.12.0-py3-none-any.whl");
  EXPECT_FALSE(old.core_metadata_sha256);
  EXPECT_FALSE(proxied.files[2].metadata_sha256);
  EXPECT_EQ(old.yanked, "bad");
}

TEST(ProxyPage, RenderedPagesNeverNameTheUpstreamNorItsCredentials) {
  const auto proxied = proxy_page(upstream_page(), "torch");
  for (const auto& text :
       {index::detail::render_project_html(proxied.page), index::detail::render_project_json(proxied.page)}) {
    EXPECT_EQ(text.find("upstream.example"), std::string::npos) << text;
    EXPECT_EQ(text.find("s3cret"), std::string::npos) << text;
    EXPECT_EQ(text.find("cdn.example"), std::string::npos) << text;
    EXPECT_NE(text.find("/files/torch/" + kSha + "/torch-2.13.0-variants.json"), std::string::npos) << text;
    // An HTML upstream gives no sizes: none is made up.
    EXPECT_EQ(text.find("\"size\""), std::string::npos) << text;
  }
}

TEST(ProxyPage, FileNamesAreEncodedInPaths) {
  EXPECT_EQ(proxied_file_path("p", kSha, "p-1.0+local%.whl"), "/files/p/" + kSha + "/p-1.0+local%25.whl");
}

}  // namespace
}  // namespace vwheel::server
