// Tests of io/base64.hpp against the RFC 4648 test vectors and a decode of every byte value.
#include <string>

#include <boost/test/unit_test.hpp>
#include <io/base64.hpp>

BOOST_AUTO_TEST_SUITE(base64_test)

namespace {

// A straightforward decoder, independent of the encoder's bit twiddling.
std::string decode(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bits, out;
  for (char c : text) {
    if (c == '=') break;
    const auto v = alphabet.find(c);
    for (int b = 5; b >= 0; --b) bits += ((v >> b) & 1) ? '1' : '0';
  }
  for (std::size_t i = 0; i + 8 <= bits.size(); i += 8)
    out += static_cast<char>(std::stoi(bits.substr(i, 8), nullptr, 2));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rfc4648_vectors) {
  using ngvi::io::base64;
  BOOST_TEST(base64("") == "");
  BOOST_TEST(base64("f") == "Zg==");
  BOOST_TEST(base64("fo") == "Zm8=");
  BOOST_TEST(base64("foo") == "Zm9v");
  BOOST_TEST(base64("foob") == "Zm9vYg==");
  BOOST_TEST(base64("fooba") == "Zm9vYmE=");
  BOOST_TEST(base64("foobar") == "Zm9vYmFy");
}

BOOST_AUTO_TEST_CASE(every_byte_round_trips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (std::size_t n : {all.size(), all.size() - 1, all.size() - 2}) {
    const std::string text = ngvi::io::base64(all.substr(0, n));
    BOOST_TEST(text.size() == (n + 2) / 3 * 4);
    BOOST_TEST(decode(text) == all.substr(0, n));
  }
}

BOOST_AUTO_TEST_SUITE_END()
