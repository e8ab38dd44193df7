#include "data/data_param_server.h"

#include <unistd.h>

#include <string>

#include "core/logging.h"
#include "data/shared_secret.h"

namespace dtrain {
namespace {

// "host pid", how the server's log names this process.
std::string ProcessName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + " pid " + std::to_string(getpid());
}

}  // namespace

StatusOr<std::unique_ptr<DataServerClient>> ConnectDataParamServer(const DataParameter& data,
                                                                   int window) {
  if (data.shuffle()) {
    return InvalidArgument(
        "data_param.shuffle with a data server's source: the server orders the records (dtrain "
        "data-server --shuffle)");
  }
  DataServerClientOptions options;
  options.uri = data.source();
  options.timeout_s = data.server_timeout();
  options.window = window;
  options.name = ProcessName();
  if (data.has_server_auth_file()) {
    DT_ASSIGN_OR_RETURN(options.secret, ReadSharedSecret(data.server_auth_file()));
  }
  if (data.rand_skip() > 0) DT_LOG(WARNING) << "rand_skip does not apply to a data server source";
  DT_LOG(INFO) << "Waiting for data server " << data.source() << " (up to " << data.server_timeout()
               << " s)";
  DT_ASSIGN_OR_RETURN(std::unique_ptr<DataServerClient> client, DataServerClient::Connect(options));
  const DataServerWelcome& welcome = client->welcome();
  if (welcome.batch_size() != 0 && welcome.batch_size() != data.batch_size()) {
    return InvalidArgument("data server " + data.source() + " serves batches of " +
                           std::to_string(welcome.batch_size()) +
                           " records per rank; data_param.batch_size is " +
                           std::to_string(data.batch_size()));
  }
  DT_LOG(INFO) << "Data server " << data.source() << " serves " << welcome.description() << " ("
               << welcome.record_count() << " records, "
               << (welcome.shipping() == SHIP_RECORDS ? "records" : "float batches") << ")";
  return client;
}

}  // namespace dtrain
