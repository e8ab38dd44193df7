// Split insertion, as Caffe's InsertSplits: a blob consumed by more than one bottom (or consumed
// and also a loss) gets a Split layer so each consumer has its own diff, and the gradients are
// summed by Split's backward. Names follow Caffe ("<blob>_<layer>_<i>_split", tops "..._split_<k>")
// so that nets and logs line up with Caffe's.
// Pure function over protobuf values.
#pragma once

#include "proto/net.pb.h"

namespace dtrain {

NetParameter InsertSplits(const NetParameter& param);

}  // namespace dtrain
