// One gzip member of `text` (zlib, level 6), for tests that feed compressed inputs:
// /proc/config.gz, nvidia-bug-report.log.gz (one member per section, concatenated).
#ifndef YARDSTICK_TESTS_UNIT_TESTING_GZIP_H_
#define YARDSTICK_TESTS_UNIT_TESTING_GZIP_H_

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <string_view>

namespace ys::testing {

inline std::string Gzip(std::string_view text) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, text.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_GZIP_H_
