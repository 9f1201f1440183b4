#include <gtest/gtest.h>

#include <string>

#include "vwheel/core/hash.hpp"

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(vwheel::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(vwheel::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(vwheel::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(vwheel::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, StreamingEqualsOneShotAtEveryBoundary) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 7));
  const auto expected = vwheel::sha256(data);
  for (std::size_t split = 0; split <= data.size(); split += 13) {
    vwheel::Sha256 h;
    h.update(std::string_view(data).substr(0, split));
    h.update(std::string_view(data).substr(split));
    EXPECT_EQ(h.finish(), expected) << split;
  }
  vwheel::Sha256 reused;
  reused.update("x");
  (void)reused.finish();
  reused.update(data);
  EXPECT_EQ(reused.finish(), expected);
}
