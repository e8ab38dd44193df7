// 64-bit FNV-1a, the hash of dtrain's snapshot checksums (core/proto_checksum.h for binary
// snapshots, data/hdf5_file.h for HDF5 ones). Not cryptographic: it finds damage (flipped bits,
// a file cut short, bytes overwritten), not tampering. A value type fed bytes in order; its
// result depends on every byte and on their order. Not thread-safe (one per hash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dtrain {

class Fnv1a64 {
 public:
  void Add(const void* bytes, size_t size) {
    const auto* p = static_cast<const unsigned char*>(bytes);
    for (size_t i = 0; i < size; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ull;
  }
  void Add(const std::string& bytes) { Add(bytes.data(), bytes.size()); }
  // A number as 8 little-endian bytes, whatever the machine's order.
  void AddU64(uint64_t value) {
    for (int i = 0; i < 8; ++i) {
      const unsigned char byte = static_cast<unsigned char>(value >> (8 * i));
      Add(&byte, 1);
    }
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace dtrain
