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

namespace {
// FIPS 180-4 / NIST CSHS example messages: "abc", empty, the 896-bit two-block message, 1M 'a'.
const std::string k896 =
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
}  // namespace

TEST(Sha384, KnownAnswers) {
  EXPECT_EQ(vwheel::sha384_hex("abc"),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7");
  EXPECT_EQ(vwheel::sha384_hex(""),
            "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b");
  EXPECT_EQ(vwheel::sha384_hex(k896),
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039");
  EXPECT_EQ(vwheel::sha384_hex(std::string(1000000, 'a')),
            "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985");
}

TEST(Sha512, KnownAnswers) {
  EXPECT_EQ(vwheel::sha512_hex("abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  EXPECT_EQ(vwheel::sha512_hex(""),
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
            "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
  EXPECT_EQ(vwheel::sha512_hex(k896),
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
            "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
  EXPECT_EQ(vwheel::sha512_hex(std::string(1000000, 'a')),
            "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
            "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
}

TEST(Sha512, StreamingEqualsOneShotAtEveryBoundary) {
  std::string data;
  for (int i = 0; i < 600; ++i) data.push_back(static_cast<char>(i * 13));
  const auto expected512 = vwheel::sha512(data);
  const auto expected384 = vwheel::sha384(data);
  // Every padding case: lengths around 111/112/128 bytes, and splits across block boundaries.
  for (std::size_t split = 0; split <= data.size(); split += 7) {
    vwheel::Sha512 h;
    h.update(std::string_view(data).substr(0, split));
    h.update(std::string_view(data).substr(split));
    EXPECT_EQ(h.finish(), expected512) << split;
    vwheel::Sha512 h384(true);
    h384.update(std::string_view(data).substr(0, split));
    h384.update(std::string_view(data).substr(split));
    EXPECT_EQ(h384.finish384(), expected384) << split;
  }
  vwheel::Sha512 reused;
  reused.update("x");
  (void)reused.finish();
  reused.update(data);
  EXPECT_EQ(reused.finish(), expected512);
  // 111 and 112 bytes: the length fits in the first block, or needs a second.
  EXPECT_EQ(vwheel::sha512_hex(std::string(111, 'a')),
            "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760b4beff48404df811b953828274461673c68d04e"
            "297b0eb7b2b4d60fc6b566a2");
  EXPECT_EQ(vwheel::sha384_hex(std::string(112, 'a')),
            "187d4e07cb306103c69967bf544d0dfbe9042577599c73c330abc0cb64c61236d5ed565ee19119d8c31779a38f791fcd");
}

namespace {

std::string digest_hex(const auto& d) { return vwheel::to_hex(d); }

// The FIPS 180-4 vectors through one engine, streamed in uneven pieces (so that the automatic
// engine's buffering and its switch to libcrypto past 64 KiB are crossed as well).
void check_engine(vwheel::HashEngine engine) {
  const std::string million(1000000, 'a');
  struct Vector {
    std::string message;
    const char* sha256;
    const char* sha384;
    const char* sha512;
  };
  const Vector vectors[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
       "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
       "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
       "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
      {k896, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
       "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
       "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
       "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
      {million, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
       "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985",
       "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
       "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
  };
  vwheel::Sha256 h256(engine);
  vwheel::Sha512 h384(true, engine);
  vwheel::Sha512 h512(false, engine);
  for (int round = 0; round < 2; ++round) {  // the second round reuses the finished objects
    for (const auto& v : vectors) {
      const std::string_view m = v.message;
      for (std::size_t pos = 0, step = 1; pos < m.size(); pos += step, step = step * 3 + 1) {
        const auto piece = m.substr(pos, step);
        h256.update(piece);
        h384.update(piece);
        h512.update(piece);
      }
      EXPECT_EQ(digest_hex(h256.finish()), v.sha256) << m.size();
      EXPECT_EQ(digest_hex(h384.finish384()), v.sha384) << m.size();
      EXPECT_EQ(digest_hex(h512.finish()), v.sha512) << m.size();
    }
  }
}

}  // namespace

TEST(HashEngines, LibcryptoLoads) {
  // scripts/bootstrap installs libssl3: the fast path must be there on every supported system.
  EXPECT_TRUE(vwheel::libcrypto_available());
}

TEST(HashEngines, BuiltinKnownAnswers) { check_engine(vwheel::HashEngine::builtin); }
TEST(HashEngines, LibcryptoKnownAnswers) { check_engine(vwheel::HashEngine::libcrypto); }
TEST(HashEngines, AutomaticKnownAnswers) { check_engine(vwheel::HashEngine::automatic); }

TEST(HashEngines, EnginesAgreeOnEverySizeAroundTheThresholds) {
  std::string data;
  for (std::size_t i = 0; i < (std::size_t{600} << 10); ++i) data.push_back(static_cast<char>((i * 131) >> 5));
  for (std::size_t size : {std::size_t{0}, std::size_t{63}, std::size_t{64}, std::size_t{65535}, std::size_t{65536},
                           std::size_t{65537}, std::size_t{512} << 10, data.size()}) {
    const std::string_view m = std::string_view(data).substr(0, size);
    vwheel::Sha256 builtin(vwheel::HashEngine::builtin);
    vwheel::Sha256 crypto(vwheel::HashEngine::libcrypto);
    builtin.update(m);
    crypto.update(m);
    const auto expected = builtin.finish();
    EXPECT_EQ(crypto.finish(), expected) << size;
    EXPECT_EQ(vwheel::sha256(m), expected) << size;
    vwheel::Sha512 b512(false, vwheel::HashEngine::builtin);
    b512.update(m);
    EXPECT_EQ(vwheel::sha512(m), b512.finish()) << size;
  }
}
