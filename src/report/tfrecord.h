// TFRecord framing, the container of TensorBoard's event files: each record is
//   uint64 length, uint32 masked CRC-32C of those 8 bytes, `length` bytes, uint32 masked CRC-32C
//   of them
// little-endian, where masked(c) = ((c >> 15) | (c << 17)) + 0xa282ead8. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dtrain {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `size` bytes at `data`.
uint32_t Crc32c(const void* data, size_t size);
// The masked form TFRecord stores.
uint32_t MaskedCrc32c(const void* data, size_t size);
// `payload` framed as one record.
std::string FrameTfRecord(const std::string& payload);

}  // namespace dtrain
