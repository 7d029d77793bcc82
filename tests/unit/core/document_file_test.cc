#include "core/document_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>

#include "testing/bench_test_util.h"

namespace ys {
namespace {

std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

bool Contains(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

TEST(DocumentFileTest, ReadsARegularFileWhole) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path() + "/a.toml", "x = 1\n");
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "x = 1\n");
  auto empty = ReadDocumentFile(WriteFile(dir.path() + "/empty", ""), DocumentKind::kJson);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST(DocumentFileTest, MissingFileIsNotFoundAndNamed) {
  auto r = ReadDocumentFile("/nonexistent/run.json", DocumentKind::kJson);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(r.status(), "/nonexistent/run.json: no such file")) << r.status().message();
}

TEST(DocumentFileTest, RefusesAFifoWithoutBlocking) {
  testing::TempDir dir;
  std::string fifo = dir.path() + "/fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = ReadDocumentFile(fifo, DocumentKind::kJson);  // no writer: a plain open would block
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(Contains(r.status(), fifo + ": is a FIFO, expected a regular file (a JSON document)"))
      << r.status().message();
  auto stream = OpenDocumentStream(fifo, "a training log");
  EXPECT_TRUE(Contains(stream.status(), "is a FIFO")) << stream.status().message();
}

TEST(DocumentFileTest, RefusesDirectoriesDevicesAndSockets) {
  testing::TempDir dir;
  auto d = ReadDocumentFile(dir.path(), DocumentKind::kToml);
  EXPECT_TRUE(Contains(d.status(), "is a directory, expected a regular file (a TOML file)"))
      << d.status().message();
  // /dev/zero never ends: it must be refused, not read until memory runs out.
  auto zero = ReadDocumentFile("/dev/zero", DocumentKind::kKernelLog);
  EXPECT_TRUE(Contains(zero.status(), "/dev/zero: is a character device"))
      << zero.status().message();
  auto zero_stream = OpenDocumentStream("/dev/zero", "a training log");
  EXPECT_TRUE(Contains(zero_stream.status(), "is a character device"));

  std::string sock_path = dir.path() + "/s";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  auto sock = ReadDocumentFile(sock_path, DocumentKind::kJson);
  ::close(fd);
  EXPECT_FALSE(sock.ok());
  EXPECT_TRUE(Contains(sock.status(), sock_path)) << sock.status().message();
}

TEST(DocumentFileTest, SizeCapIsEnforced) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path() + "/big", std::string(1000, 'x'));
  auto exact = ReadDocumentFile(path, 1000, "a test file");
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->size(), 1000u);
  auto over = ReadDocumentFile(path, 999, "a test file");
  EXPECT_EQ(over.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(Contains(over.status(), path + ": larger than 999 bytes, the limit for a test file"))
      << over.status().message();
}

TEST(DocumentFileTest, CapsPerKindAreStated) {
  EXPECT_EQ(MaxBytesOf(DocumentKind::kToml), kMaxTomlDocumentBytes);
  EXPECT_EQ(MaxBytesOf(DocumentKind::kJson), kMaxJsonDocumentBytes);
  EXPECT_LT(kMaxTomlDocumentBytes, kMaxJsonDocumentBytes);
}

}  // namespace
}  // namespace ys
