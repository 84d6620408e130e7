#include "rml/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace prte::rml::auth {
namespace {

// The kernel's CSPRNG (what OpenSSL's generator seeds itself from). Not RAND_bytes: setting up
// OpenSSL's generator costs the master ~0.5 ms of its start-up, before any daemon needs a proof.
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
    Mac mac{};
    unsigned int length = 0;
    HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), message.data(), message.size(), mac.data(),
         &length);
    return mac;
}

}  // namespace

std::string make_secret()
{
    uint8_t raw[32];
    random_bytes(raw, sizeof(raw));
    static const char* digits = "0123456789abcdef";
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

bool equal(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

}  // namespace prte::rml::auth
