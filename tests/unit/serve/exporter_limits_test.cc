// The exporter's HTTP side against hostile clients on loopback: the Host header check (DNS
// rebinding), request bodies refused before they are read, idle and half-open connections that
// do not hold up a scrape. Every connection is to 127.0.0.1, few, and closed at the end.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "host/host.h"
#include "serve/collectors.h"
#include "serve/exporter_server.h"

namespace ys::serve {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace exporter_limits_test {
namespace {

const std::string kFixtures = YS_FIXTURES_DIR;

TEST(HostHeaderTest, AcceptsThisExportersNamesWithOrWithoutPort) {
  const std::set<std::string> allowed = {"127.0.0.1", "localhost", "::1", "node17",
                                         "metrics.example"};
  for (const char* ok : {"", "127.0.0.1", "127.0.0.1:9400", "localhost:9400", "LOCALHOST",
                         "[::1]:9400", "[::1]", "node17", "node17.:80", "metrics.example:9400"}) {
    EXPECT_TRUE(HostHeaderAllowed(ok, allowed)) << ok;
  }
  for (const char* bad :
       {"evil.example", "evil.example:9400", "127.0.0.1.evil.example", "node17:", "node17:x",
        "node17:70000", "[::1", "[::1]x", "::1", "[evil]:1", ":9400"}) {
    EXPECT_FALSE(HostHeaderAllowed(bad, allowed)) << bad;
  }
  auto names = AllowedHostNames("127.0.0.1", {"Proxy.Example"});
  EXPECT_EQ(names.count("localhost"), 1u);
  EXPECT_EQ(names.count("proxy.example"), 1u);
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  EXPECT_TRUE(HostHeaderAllowed(std::string(host) + ":9400", names)) << host;
}

// A server on a free loopback port with the recorded collectors.
class ServedExporter {
 public:
  ServedExporter()
      : host_(
            std::make_unique<host::Host>(*host::Host::AtRoot(kFixtures + "/hosts/healthy-8gpu"))) {
    std::vector<std::unique_ptr<Collector>> cs;
    cs.push_back(MakeGpuCollector(*host_, kFixtures + "/nvml/exporter-h100x8.json"));
    set_ = std::make_unique<CollectorSet>(std::move(cs), CollectorSet::Options{0.05, 1});
    set_->Start();
    server_ = std::make_unique<ExporterServer>(*set_, ExporterPage("", 1));
    port_ = *server_->BindAnyPort("127.0.0.1");
    serving_ = std::thread([this] { (void)server_->ServeBound(); });
  }
  ~ServedExporter() {
    server_->Stop();
    serving_.join();
  }
  int port() const { return port_; }

  // A raw TCP connection to the server, with 3 s send and receive timeouts.
  int Connect() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{3, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }

 private:
  std::unique_ptr<host::Host> host_;  // the collectors read through it
  std::unique_ptr<CollectorSet> set_;
  std::unique_ptr<ExporterServer> server_;
  int port_ = 0;
  std::thread serving_;
};

long RssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(ExporterLimitsTest, AForeignHostHeaderIsRefused) {
  ServedExporter ex;
  httplib::Client cli("127.0.0.1", ex.port());
  auto good = cli.Get("/metrics");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, 200);
  auto rebound = cli.Get("/metrics", {{"Host", "attacker.example:" + std::to_string(ex.port())}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 421);
  EXPECT_EQ(rebound->body.find("yardstick_"), std::string::npos);
  auto api = cli.Get("/api/telemetry", {{"Host", "attacker.example"}});
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 421);
  auto local = cli.Get("/metrics", {{"Host", "localhost:" + std::to_string(ex.port())}});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->status, 200);
}

TEST(ExporterLimitsTest, ABigPostIsRefusedBeforeItsBodyIsRead) {
  ServedExporter ex;
  for (const char* framing : {"Content-Length: 268435456", "Transfer-Encoding: chunked"}) {
    int fd = ex.Connect();
    std::string head =
        std::string("POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n") + framing + "\r\n\r\n";
    ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(head.size()));
    long before = RssKiB();
    // Up to 128 MiB of body, stopping when the server has closed the connection.
    std::string chunk(1 << 20, 'x');
    if (std::string(framing).find("chunked") != std::string::npos)
      chunk = "100000\r\n" + std::string(1 << 20, 'x') + "\r\n";
    size_t sent = 0;
    for (int i = 0; i < 128; ++i) {
      ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    long after = RssKiB();
    char buf[256] = {0};
    ssize_t got = ::recv(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    EXPECT_LT(after - before, 16 * 1024)
        << framing << ": the server's memory grew by " << (after - before) << " KiB while " << sent
        << " bytes were sent";
    if (got > 0) {
      EXPECT_NE(std::string(buf).find(" 413 "), std::string::npos) << framing << ": " << buf;
    }
  }
  httplib::Client cli("127.0.0.1", ex.port());
  auto r = cli.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(ExporterLimitsTest, IdleAndHalfOpenConnectionsDoNotHoldUpAScrape) {
  ServedExporter ex;
  std::vector<int> idle;
  for (int i = 0; i < 12; ++i) idle.push_back(ex.Connect());  // connected, never a byte
  for (int i = 0; i < 4; ++i) {                               // a request begun and never finished
    int fd = ex.Connect();
    const char part[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    (void)::send(fd, part, sizeof part - 1, MSG_NOSIGNAL);
    idle.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int round = 0; round < 3; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    httplib::Client cli("127.0.0.1", ex.port());
    auto r = cli.Get("/metrics");
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_LT(s, 1.5) << "a scrape waited " << s << " s behind " << idle.size()
                      << " idle connections";
  }
  // The server drops them after its timeout: a read on each ends (EOF) well before our own 3 s.
  auto t0 = std::chrono::steady_clock::now();
  for (int fd : idle) {
    char c;
    (void)::recv(fd, &c, 1, 0);
    ::close(fd);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
}

}  // namespace
}  // namespace exporter_limits_test
}  // namespace ys::serve
