// Authentication between daemons (DESIGN.md, "Wire format and transport"): a connection is used
// only after both ends prove they know the DVM's secret. The secret itself never crosses the
// wire: each side sends a fresh random nonce and an HMAC-SHA256 (GNU Nettle) over both nonces, its
// role and the connecting daemon's rank, so a recorded handshake cannot be replayed and a peer
// without the secret learns nothing it could use.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace prte::rml::auth {

inline constexpr size_t kNonceSize = 32;
inline constexpr size_t kMacSize = 32;
using Nonce = std::array<uint8_t, kNonceSize>;
using Mac = std::array<uint8_t, kMacSize>;

// A new secret for a DVM: 32 random bytes as 64 hex characters (prte creates it; the daemons it
// launches get it on their standard input).
std::string make_secret();
// True when `secret` has the form make_secret() produces.
bool well_formed(const std::string& secret);

Nonce make_nonce();

// The MAC the connecting side sends (for its rank), and the one the accepting side answers with
// (for both ranks: the connecting side learns that it reached the daemon it meant to).
Mac client_proof(const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce, uint32_t rank);
Mac server_proof(const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce, uint32_t client_rank,
                 uint32_t server_rank);

// Comparison that takes the same time whatever the first differing byte.
bool equal(const Mac& a, const Mac& b);

}  // namespace prte::rml::auth
