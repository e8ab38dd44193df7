// proto_io: protobuf messages to and from files, as prototxt text or binary wire format.
//
// This is the one place dtrain hands files to protobuf's parsers and serialisers (nets, solvers,
// .caffemodel, .solverstate, .binaryproto mean files). Every failure comes back as a Status that
// names the file: text parse errors as "path:LINE:COLUMN: message" (both 1-based; protobuf counts
// a tab as advancing to the next multiple of 8 columns); a missing file as NotFound; a truncated
// or corrupt binary file as DataLoss; an OS failure as IoError with strerror's text.
//
// Writes are atomic: the message goes to "<path>.tmp-<pid>" in the same directory, which is
// fsync'ed and renamed over `path`, and then the directory is fsync'ed. A reader therefore sees
// either the old file or the complete new one, never a partial file, even across a crash; on any
// failure the temporary file is removed and `path` is untouched.
//
// Binary files are limited to protobuf's 2 GiB message size (as in Caffe). The binary format has
// no framing, so a file cut off exactly at a field boundary parses as a shorter message; only a
// cut inside a field is detected as DataLoss.
//
// Stateless free functions; the caller owns the messages. Thread-safe, except that two writers
// in one process must not write the same path at the same time (they would share a temp name).
#pragma once

#include <string>

#include "core/status.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace dtrain {

// Parses the prototxt file at `path` into `msg` (cleared first). `rest_parsed` (optional) says,
// when the parse fails, whether the only problems were fields the schema lacks: `msg` then holds
// everything else, so a caller can check the rest and name every problem of the file in one run.
Status ReadTextProto(const std::string& path, google::protobuf::Message* msg,
                     bool* rest_parsed = nullptr);

// Parses prototxt `text` into `msg` (cleared first); errors are prefixed with `name_for_errors`.
// `rest_parsed` as for ReadTextProto.
Status ParseTextProto(const std::string& text, const std::string& name_for_errors,
                      google::protobuf::Message* msg, bool* rest_parsed = nullptr);

// Parses the binary protobuf file at `path` into `msg` (cleared first).
Status ReadBinaryProto(const std::string& path, google::protobuf::Message* msg);

// Atomically replaces `path` with `msg` in binary wire format.
Status WriteBinaryProtoAtomically(const std::string& path, const google::protobuf::Message& msg);

// Atomically replaces `path` with `msg` as prototxt.
Status WriteTextProtoAtomically(const std::string& path, const google::protobuf::Message& msg);

}  // namespace dtrain
