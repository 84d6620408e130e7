// What the messaging tests share: a libevent loop the test drives until something has happened
// (or a bound on waiting has passed, which fails the test), a plain TCP socket playing a stranger
// that speaks no protocol or only part of it, and the handshake and frame headers written by hand
// for a socket that plays a daemon writing any bytes it likes.
#pragma once

#include <arpa/inet.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "rml/auth.h"

namespace prte::test {

class TestLoop {
  public:
    TestLoop() : base_(event_base_new())
    {
        // Wakes the loop every 10 ms so run_until() looks at its condition and its deadline.
        tick_ = event_new(base_, -1, EV_PERSIST, [](evutil_socket_t, short, void*) {}, nullptr);
        timeval tv{0, 10000};
        event_add(tick_, &tv);
    }
    ~TestLoop()
    {
        event_free(tick_);
        event_base_free(base_);
    }
    TestLoop(const TestLoop&) = delete;
    TestLoop& operator=(const TestLoop&) = delete;

    event_base* base() const { return base_; }

    // Runs the loop until `done` holds or `limit_ms` have passed; returns whether it holds.
    bool run_until(const std::function<bool()>& done, int limit_ms = 5000)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
        while (!done()) {
            if (std::chrono::steady_clock::now() >= deadline) return false;
            event_base_loop(base_, EVLOOP_ONCE);
        }
        return true;
    }

  private:
    event_base* base_;
    event* tick_;
};

// A TCP client that is not a daemon: it connects, reads what it is sent, writes what it is told.
class RawClient {
  public:
    explicit RawClient(uint16_t port)
    {
        fd_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(port);
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
        connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
    }
    ~RawClient()
    {
        if (fd_ >= 0) ::close(fd_);
    }
    RawClient(const RawClient&) = delete;
    RawClient& operator=(const RawClient&) = delete;

    bool connected() const { return connected_; }
    void write(const std::string& bytes) { (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
    // Reads whatever has arrived without waiting; true once the peer has closed.
    bool poll()
    {
        char buf[4096];
        for (;;) {
            ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
            if (n > 0) {
                received_.insert(received_.end(), buf, buf + n);
                continue;
            }
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) closed_ = true;
            return closed_;
        }
    }
    size_t received() const { return received_.size(); }
    const std::vector<char>& bytes() const { return received_; }
    bool closed() const { return closed_; }

  private:
    int fd_ = -1;
    bool connected_ = false;
    bool closed_ = false;
    std::vector<char> received_;
};

// Completes the handshake by hand as daemon `rank`, so that the test can then write any bytes.
inline bool handshake_by_hand(TestLoop& loop, RawClient& client, uint32_t rank, const std::string& secret)
{
    if (!loop.run_until([&] { return client.poll() || client.received() >= 40; })) return false;
    rml::auth::Nonce server{}, mine = rml::auth::make_nonce();
    std::memcpy(server.data(), client.bytes().data() + 8, server.size());
    rml::auth::Mac mac = rml::auth::client_proof(secret, server, mine, rank);
    std::string proof = "PRTH";
    for (int shift = 24; shift >= 0; shift -= 8) proof += static_cast<char>(rank >> shift);
    proof.append(reinterpret_cast<const char*>(mine.data()), mine.size());
    proof.append(reinterpret_cast<const char*>(mac.data()), mac.size());
    client.write(proof);
    return loop.run_until([&] { return client.poll() || client.received() >= 40 + 36; });
}

// A frame's header, as the connection writes it (connection.h, "Frame layout").
inline std::string header(uint32_t origin, uint32_t dest, uint32_t tag, uint32_t seq, uint32_t length)
{
    std::string h = "PRTM";
    for (uint32_t v : {origin, dest, tag, seq, length}) {
        for (int shift = 24; shift >= 0; shift -= 8) h += static_cast<char>(v >> shift);
    }
    return h;
}

}  // namespace prte::test
