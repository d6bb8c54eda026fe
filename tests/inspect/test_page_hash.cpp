// test_page_hash.cpp — what `attnlab serve`'s Content-Security-Policy and form rest on: SHA-256 and base64 give
// their standards' answers, the hash is of the very script the page holds, and the page carries the server's
// limits for its form. (The policy in a real browser, and the limits against the real server:
// tests/inspect/serve_http_test.py and serve_page_checks.py.)
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "inspect/pages/explorer_page.h"
#include "util/base64.h"
#include "util/sha256.h"

using namespace attnlab;

namespace {

std::string hex(const std::array<uint8_t, 32>& digest) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest) out += std::string{digits[byte >> 4], digits[byte & 15]};
  return out;
}

}  // namespace

TEST_CASE("SHA-256 gives FIPS 180-4's example digests, across the one- and two-block paddings") {
  CHECK(hex(sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // 56 bytes: the length no longer fits the block, so the padding takes a second one.
  CHECK(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hex(sha256(std::string(1000000, 'a'))) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  CHECK(hex(sha256("abd")) != hex(sha256("abc")));
}

TEST_CASE("base64 writes RFC 4648's examples, with '=' filling the last group") {
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foo") == "Zm9v");
  CHECK(base64("foobar") == "Zm9vYmFy");
  CHECK(base64(std::string("\xff\xfe\x00", 3)) == "//4A");
}

TEST_CASE("the explorer's one inline script is explorer_script(), so its hash names what the browser runs") {
  const std::string page = explorer_page_html("t", "", {"runs/a"});
  const std::string script = explorer_script();
  const size_t at = page.find("<script>" + script + "</script>");
  CHECK(at != std::string::npos);
  CHECK(page.find("<script>", at + 1) == std::string::npos);  // no second script to run (the JSON ones are data)
  CHECK(script.find('\r') == std::string::npos);
}

TEST_CASE("a served page carries the server's limits for its form; a page without them checks nothing") {
  AskLimits limits;
  limits.max_text_bytes = 300;
  limits.max_beam = 16;
  limits.max_ig_steps = 64;
  limits.max_answer_mb = 8;
  limits.max_tokens = {{5, 4, 3}, {-1, -1, -1}};
  const std::string page = explorer_page_html("t", "", {"runs/a", "runs/b"}, "", {}, limits);
  const size_t start = page.find("id=\"explorer-config\">") + std::string("id=\"explorer-config\">").size();
  const nlohmann::json config = nlohmann::json::parse(page.substr(start, page.find("</script>", start) - start));
  CHECK(config["limits"]["text_bytes"] == 300);
  CHECK(config["limits"]["beam"] == 16);
  CHECK(config["limits"]["ig_steps"] == 64);
  CHECK(config["limits"]["answer_mb"] == 8);
  CHECK(config["limits"]["tokens"] == nlohmann::json{{5, 4, 3}, {-1, -1, -1}});
  CHECK(explorer_page_html("t", "", {"runs/a"}).find("\"limits\":null") != std::string::npos);
}
