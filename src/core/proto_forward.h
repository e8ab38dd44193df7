// Declarations of the generated schema types (proto/net.proto, package dtrain) that the base
// headers of layers and nets name by reference only, so that those headers, and every file that
// includes them without reading a message's fields, compile without the generated headers.
//
// A file that reads or builds a message includes its generated header ("proto/net.pb.h") itself.
// The enum declarations are opaque (protobuf generates `enum Phase : int { TRAIN = 0, ... }`):
// their values are visible only with the generated header. Declarations only; no state.
#pragma once

namespace dtrain {

class LayerParameter;
class NetParameter;
class NetState;
enum Phase : int;

}  // namespace dtrain
