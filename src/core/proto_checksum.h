// Checksums of snapshot contents. dtrain's .caffemodel and .solverstate files carry a 64-bit
// FNV-1a checksum of their serialized contents in a `dtrain_checksum` field (number 1001, a
// dtrain extension that Caffe's reader skips, so both still read each other's files). A reader
// verifies it when present: bytes damaged after the write are found even where the file still
// parses (a flipped float in a history blob would otherwise resume silently). Files without the
// field (Caffe's) are taken as they are. Stateless.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace google::protobuf {
class Message;
}

namespace dtrain {

// The checksum of `message` serialized with its dtrain_checksum cleared. The message type must
// have a fixed64 field named dtrain_checksum.
uint64_t ContentChecksum(const google::protobuf::Message& message);

// Sets dtrain_checksum to ContentChecksum.
void SealWithChecksum(google::protobuf::Message* message);

// OK when the message has no dtrain_checksum or it matches; else DataLoss naming `path`.
Status VerifyChecksum(const google::protobuf::Message& message, const std::string& path);

// The DataLoss of a file whose contents do not match its checksum, naming `path`; HDF5
// snapshots (solver/hdf5_snapshot.h) report their checksums' mismatches with it too.
Status ChecksumMismatch(const std::string& path);

}  // namespace dtrain
