#include "data/shared_secret.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fstream>
#include <sstream>

namespace dtrain {
namespace {
constexpr char kContext[] = "dtrain-data-server";
}  // namespace

StatusOr<std::string> ReadSharedSecret(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read the shared-secret file '" + path + "'");
  std::ostringstream contents;
  contents << in.rdbuf();
  std::string secret = contents.str();
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) return InvalidArgument("the shared-secret file '" + path + "' is empty");
  return secret;
}

StatusOr<std::string> MakeNonce() {
  std::string nonce(kNonceBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), kNonceBytes) != 1) {
    return Status(StatusCode::kInternal, "RAND_bytes failed: no random source");
  }
  return nonce;
}

std::string ChallengeResponse(const std::string& secret, const std::string& nonce) {
  const std::string message = kContext + nonce;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &length);
  return std::string(reinterpret_cast<const char*>(mac), length);
}

bool IsValidResponse(const std::string& secret, const std::string& nonce,
                     const std::string& answer) {
  const std::string expected = ChallengeResponse(secret, nonce);
  return answer.size() == expected.size() &&
         CRYPTO_memcmp(answer.data(), expected.data(), expected.size()) == 0;
}

}  // namespace dtrain
