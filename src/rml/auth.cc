#include "rml/auth.h"

#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace prte::rml::auth {
namespace {

// The kernel's CSPRNG: what a library's generator would seed itself from, without setting one up
// (OpenSSL's RAND_bytes cost the master ~0.5 ms of its start-up, before any daemon needed a proof).
void random_bytes(uint8_t* out, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
        got += static_cast<size_t>(r);
    }
}

Mac proof(const char* role, const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce,
          std::initializer_list<uint32_t> ranks)
{
    std::vector<uint8_t> message(role, role + std::strlen(role));
    message.insert(message.end(), server_nonce.begin(), server_nonce.end());
    message.insert(message.end(), client_nonce.begin(), client_nonce.end());
    for (uint32_t rank : ranks) {
        for (int shift = 24; shift >= 0; shift -= 8) message.push_back(static_cast<uint8_t>(rank >> shift));
    }
    static_assert(std::tuple_size<Mac>::value == SHA256_DIGEST_SIZE);
    hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, secret.size(), reinterpret_cast<const uint8_t*>(secret.data()));
    hmac_sha256_update(&ctx, message.size(), message.data());
    Mac mac{};
    hmac_sha256_digest(&ctx, mac.size(), mac.data());
    return mac;
}

}  // namespace

std::string make_secret()
{
    uint8_t raw[32];
    random_bytes(raw, sizeof(raw));
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (uint8_t b : raw) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

bool well_formed(const std::string& secret)
{
    return secret.size() == 64 && secret.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Nonce make_nonce()
{
    Nonce n{};
    random_bytes(n.data(), n.size());
    return n;
}

Mac client_proof(const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce, uint32_t rank)
{
    return proof("prte-rml-client", secret, server_nonce, client_nonce, {rank});
}

Mac server_proof(const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce, uint32_t client_rank,
                 uint32_t server_rank)
{
    return proof("prte-rml-server", secret, server_nonce, client_nonce, {client_rank, server_rank});
}

bool equal(const Mac& a, const Mac& b) { return memeql_sec(a.data(), b.data(), a.size()) != 0; }  // constant time

}  // namespace prte::rml::auth
