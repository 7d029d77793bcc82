#include "comm/liveness.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

namespace ys::comm {
namespace {

constexpr char kPing = 'p';
constexpr char kPong = 'P';

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

Result<std::unique_ptr<LivenessResponder>> LivenessResponder::Start(
    const std::string& advertised_host) {
  std::unique_ptr<LivenessResponder> r(new LivenessResponder());
  r->listen_fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = r->listen_fd_ >= 0;
  if (!v6) r->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (r->listen_fd_ < 0) return Status::Io(std::string("liveness socket: ") + std::strerror(errno));
  int port = 0;
  if (v6) {
    int off = 0;  // dual stack: IPv4 peers reach it too
    ::setsockopt(r->listen_fd_, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    if (::bind(r->listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      return Status::Io(std::string("liveness bind: ") + std::strerror(errno));
    }
    socklen_t len = sizeof(a);
    ::getsockname(r->listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin6_port);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(r->listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      return Status::Io(std::string("liveness bind: ") + std::strerror(errno));
    }
    socklen_t len = sizeof(a);
    ::getsockname(r->listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  if (::listen(r->listen_fd_, 64) != 0)
    return Status::Io(std::string("liveness listen: ") + std::strerror(errno));
  if (::pipe2(r->wake_, O_CLOEXEC) != 0)
    return Status::Io(std::string("liveness pipe: ") + std::strerror(errno));
  r->endpoint_ = advertised_host + ":" + std::to_string(port);
  int listen_fd = r->listen_fd_, wake = r->wake_[0];
  r->thread_ = std::thread([listen_fd, wake] {
    for (;;) {
      pollfd fds[2] = {{listen_fd, POLLIN, 0}, {wake, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      // One byte in, one byte out; a peer that sends nothing within a second is dropped.
      pollfd in{c, POLLIN, 0};
      char b = 0;
      if (::poll(&in, 1, 1000) == 1 && ::read(c, &b, 1) == 1 && b == kPing) {
        [[maybe_unused]] ssize_t n = ::send(c, &kPong, 1, MSG_NOSIGNAL);
      }
      ::close(c);
    }
  });
  return r;
}

LivenessResponder::~LivenessResponder() {
  if (thread_.joinable()) {
    char b = 0;
    [[maybe_unused]] ssize_t n = ::write(wake_[1], &b, 1);
    thread_.join();
  }
  for (int fd : {listen_fd_, wake_[0], wake_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

std::vector<int> UnansweredEndpoints(const std::vector<std::string>& endpoints, double deadline_s) {
  struct Probe {
    int fd = -1;
    bool sent = false;
    bool answered = false;
  };
  std::vector<Probe> probes(endpoints.size());
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const std::string& e = endpoints[i];
    auto colon = e.rfind(':');
    if (colon == std::string::npos || colon == 0) continue;
    std::string host = e.substr(0, colon), port = e.substr(colon + 1);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0 || res == nullptr) continue;
    int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
      SetNonBlocking(fd);
      if (::connect(fd, res->ai_addr, res->ai_addrlen) == 0 || errno == EINPROGRESS) {
        probes[i].fd = fd;
      } else {
        ::close(fd);
      }
    }
    ::freeaddrinfo(res);
  }
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<size_t> index;
    for (size_t i = 0; i < probes.size(); ++i) {
      if (probes[i].fd < 0 || probes[i].answered) continue;
      fds.push_back({probes[i].fd, static_cast<short>(probes[i].sent ? POLLIN : POLLOUT), 0});
      index.push_back(i);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (fds.empty() || left.count() <= 0) break;
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) continue;
    for (size_t k = 0; k < fds.size(); ++k) {
      Probe& p = probes[index[k]];
      if (fds[k].revents & (POLLERR | POLLHUP | POLLNVAL)) {
        if (!p.sent || !(fds[k].revents & POLLIN)) {
          ::close(p.fd);
          p.fd = -1;
          continue;
        }
      }
      if (!p.sent && (fds[k].revents & POLLOUT)) {
        p.sent = ::send(p.fd, &kPing, 1, MSG_NOSIGNAL) == 1;
        if (!p.sent) {
          ::close(p.fd);
          p.fd = -1;
        }
      } else if (p.sent && (fds[k].revents & POLLIN)) {
        char b = 0;
        p.answered = ::read(p.fd, &b, 1) == 1 && b == kPong;
        if (!p.answered) {
          ::close(p.fd);
          p.fd = -1;
        }
      }
    }
  }
  std::vector<int> silent;
  for (size_t i = 0; i < probes.size(); ++i) {
    if (!probes[i].answered) silent.push_back(static_cast<int>(i));
    if (probes[i].fd >= 0) ::close(probes[i].fd);
  }
  return silent;
}

}  // namespace ys::comm
