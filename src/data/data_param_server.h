// ConnectDataParamServer: a data layer's connection to the data server its data_param names
// (`source: "tcp://HOST:PORT"`, docs/data-server.md), made one way for every layer that reads one
// (Data, AnnotatedData, BoxData).
//
// Refuses data_param.shuffle (the server orders the records: dtrain data-server --shuffle), warns
// that rand_skip does not apply, reads the shared secret from server_auth_file, waits up to
// server_timeout for the server (logged) and refuses a server that serves another per-rank batch
// than data_param.batch_size. `window` is how many batches the client asks for ahead (the layer's
// prefetch). Errors are plain; the layer puts its name before them.
#pragma once

#include <memory>

#include "core/status.h"
#include "data/data_server_client.h"
#include "proto/layer_params.pb.h"

namespace dtrain {

StatusOr<std::unique_ptr<DataServerClient>> ConnectDataParamServer(const DataParameter& data,
                                                                   int window);

}  // namespace dtrain
