#include "sources/body_buffer.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

namespace dagadvisor::sources {
namespace {

TEST_CASE("a body buffer grows in place, keeping its bytes, in whole pages", "[body]") {
  const std::size_t page = BodyBuffer::roundedCapacity(1);
  BodyBuffer body;
  CHECK(body.empty());
  CHECK(body.capacity() == 0);
  REQUIRE(body.reserve(10));
  CHECK(body.capacity() == page);
  const std::string chunk(page / 2 + 1, 'a');
  for (int i = 0; i < 1000; ++i) {
    body.append(chunk);
  }
  CHECK(body.size() == chunk.size() * 1000);
  CHECK(body.capacity() % page == 0);
  // Growth by an eighth at least: the steps stay few, the spare room under an eighth.
  CHECK(body.capacity() <= body.size() + body.size() / 8 + page);
  CHECK(body.view().find_first_not_of('a') == std::string_view::npos);
  CHECK(body.data()[body.size()] == '\0');  // the bytes past the end are zero
}

TEST_CASE("a body buffer made from text is padded for the decoder", "[body]") {
  const BodyBuffer body(std::string(5000, 'x'));
  CHECK(body == std::string(5000, 'x'));
  CHECK(body.capacity() >= body.size() + kBodyPadding);
  const BodyBuffer empty("");
  CHECK(empty.empty());
  CHECK(empty.capacity() >= kBodyPadding);
}

TEST_CASE("a body buffer moves without copying and frees its mapping once", "[body]") {
  BodyBuffer first("{\"status\":\"success\"}");
  const char* bytes = first.data();
  BodyBuffer second(std::move(first));
  CHECK(second.data() == bytes);
  CHECK(first.data() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  CHECK(first.empty());
  BodyBuffer third("other");
  third = std::move(second);
  CHECK(third == "{\"status\":\"success\"}");
  CHECK(third.data() == bytes);
}

TEST_CASE("a body buffer the system cannot map is refused, not thrown, by reserve", "[body]") {
  BodyBuffer body("kept");
  CHECK_FALSE(body.reserve(std::size_t{1} << 62));
  CHECK(body == "kept");  // unchanged
  CHECK_THROWS_AS(body.append(std::string_view(body.data(), std::size_t{1} << 62)), std::bad_alloc);
  CHECK(body == "kept");
}

TEST_CASE("setSize keeps within the capacity", "[body]") {
  BodyBuffer body;
  REQUIRE(body.reserve(100));
  std::string_view("abc").copy(body.writable(), 3);
  body.setSize(3);
  CHECK(body == "abc");
  body.setSize(body.capacity() + 1);
  CHECK(body.size() == body.capacity());
}

}  // namespace
}  // namespace dagadvisor::sources
