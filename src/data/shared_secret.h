// The data server's shared secret: only clients that know it may connect (--auth-file).
//
// The server sends a fresh random nonce with every connection's CHALLENGE; the client answers
// with HMAC-SHA256(secret, "dtrain-data-server" + nonce), which the server compares in constant
// time. The secret itself never crosses the network and an answer is useless for another
// connection. This authenticates clients only: it neither encrypts the stream nor authenticates
// the server (run the job on a private network, as MPI's own traffic requires anyway).
//
// OpenSSL's libcrypto does the cryptography; this is the one file that calls it. Thread-safe.
#pragma once

#include <string>

#include "core/status.h"

namespace dtrain {

inline constexpr size_t kNonceBytes = 32;

// The secret in `path`: its contents less a trailing newline. A missing, unreadable or empty
// file is an error naming it.
StatusOr<std::string> ReadSharedSecret(const std::string& path);

// kNonceBytes bytes from the system's cryptographic random source.
StatusOr<std::string> MakeNonce();

// The 32-byte answer to `nonce`.
std::string ChallengeResponse(const std::string& secret, const std::string& nonce);

// Whether `answer` is the right response, compared in constant time.
bool IsValidResponse(const std::string& secret, const std::string& nonce,
                     const std::string& answer);

}  // namespace dtrain
