// dtrain data-server: serve an LMDB (or a solver's TRAIN Data, AnnotatedData or BoxData layer) to
// training ranks over TCP.
#include <signal.h>

#include <cstdio>

#include "cli/command.h"
#include "core/logging.h"
#include "data/data_server.h"
#include "data/data_server_client.h"
#include "data/shared_secret.h"
#include "layers/layer_inputs.h"
#include "net/net_filter.h"
#include "net/read_net.h"
#include "proto/solver.pb.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

// The TRAIN-phase net the solver trains (net, net_param, train_net or train_net_param).
StatusOr<NetParameter> TrainNetOf(const std::string& solver_path) {
  DT_ASSIGN_OR_RETURN(const SolverParameter solver, ReadSolverParameter(solver_path));
  NetParameter net;
  if (solver.has_train_net_param()) {
    net = solver.train_net_param();
  } else if (solver.has_net_param()) {
    net = solver.net_param();
  } else if (solver.has_train_net() || solver.has_net()) {
    DT_ASSIGN_OR_RETURN(
        net, ReadNetParameter(solver.has_train_net() ? solver.train_net() : solver.net()));
  } else {
    return InvalidArgument("solver '" + solver_path + "' names no train net");
  }
  NetState state;
  state.set_phase(TRAIN);
  state.MergeFrom(net.state());
  state.MergeFrom(solver.train_state());
  state.set_phase(TRAIN);
  return FilterNet(net, state);
}

// Whether a data server can serve the records of a layer reading `format`: an LMDB of Data,
// AnnotatedData or BoxData, or one such layer already pointed at a server.
bool Servable(RecordsFormat format) {
  return format == RecordsFormat::kLmdb || format == RecordsFormat::kAnnotatedLmdb ||
         format == RecordsFormat::kBoxLmdb || format == RecordsFormat::kDataServer;
}

// What --source/--batch-size or --solver (with an optional --source) ask to serve.
StatusOr<ServedData> ServedDataFromFlags(const Flags& flags) {
  ServedData served;
  if (flags.Has("solver") == false && flags.Has("source") == false) {
    return InvalidArgument("give --source=LMDB --batch-size=N, or --solver=S");
  }
  if (flags.Has("batch-size")) {
    DT_ASSIGN_OR_RETURN(int batch, flags.GetInt("batch-size"));
    if (batch <= 0) return InvalidArgument("--batch-size must be positive");
    served.batch_size = static_cast<uint32_t>(batch);
  }
  served.source = flags.Get("source");
  const std::string ship = flags.Get("ship");
  if (flags.Has("solver")) {
    DT_ASSIGN_OR_RETURN(NetParameter net, TrainNetOf(flags.Get("solver")));
    const LayerParameter* data_layer = nullptr;
    for (const LayerParameter& layer : net.layer()) {
      if (!Servable(InputsOfLayer(layer).format)) continue;
      if (data_layer) {
        return InvalidArgument("the TRAIN net of '" + flags.Get("solver") +
                               "' has more than one data layer a data server serves ('" +
                               data_layer->name() + "', '" + layer.name() +
                               "'); serve one with --source");
      }
      data_layer = &layer;
    }
    if (!data_layer) {
      return InvalidArgument("the TRAIN net of '" + flags.Get("solver") +
                             "' has no Data, AnnotatedData or BoxData layer");
    }
    const DataParameter& data = data_layer->data_param();
    if (served.source.empty()) served.source = data.source();
    if (IsDataServerUri(served.source)) {
      return InvalidArgument("layer '" + data_layer->name() + "' of '" + flags.Get("solver") +
                             "' reads from a data server (" + served.source +
                             "); give the LMDB to serve with --source");
    }
    // AnnotatedData and BoxData parse their records themselves (boxes with the images): they
    // are served records, and cannot use float batches of transformed Datums.
    const bool records_only = data_layer->type() != "Data";
    if (records_only && ship == "floats") {
      return InvalidArgument("--ship=floats serves transformed Datums, which layer '" +
                             data_layer->name() + "' (" + data_layer->type() + ") of '" +
                             flags.Get("solver") +
                             "' cannot read (it reads the records' boxes itself); use "
                             "--ship=records");
    }
    served.transform = WithLegacyDataFields(data_layer->transform_param(), data);
    served.force_encoded_color = data.force_encoded_color();
    served.phase = TRAIN;
    served.shipping = ship == "records" || records_only ? SHIP_RECORDS : SHIP_FLOATS;
  } else {
    if (!flags.Has("batch-size")) return InvalidArgument("--source needs --batch-size");
    served.shipping = ship == "floats" ? SHIP_FLOATS : SHIP_RECORDS;
  }
  served.shuffle = flags.GetBool("shuffle");
  DT_ASSIGN_OR_RETURN(int seed, flags.GetInt("seed"));
  served.shuffle_seed = static_cast<uint64_t>(seed);
  if (!ship.empty() && ship != "records" && ship != "floats") {
    return InvalidArgument("--ship must be records or floats, not '" + ship + "'");
  }
  return served;
}

// Blocks until SIGINT or SIGTERM.
void WaitForStopSignal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int received = 0;
  sigwait(&signals, &received);
  DT_LOG(INFO) << "data server: " << (received == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping";
}

Status RunDataServer(const Flags& flags) {
  // Block the stop signals before any thread starts, so that every thread inherits the mask and
  // only sigwait takes them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  if (!flags.Has("listen")) return InvalidArgument("--listen=tcp://ADDRESS:PORT is required");
  DT_ASSIGN_OR_RETURN(DataServerEndpoint endpoint,
                      ParseDataServerUri(flags.Get("listen"), /*listening=*/true));
  DataServerOptions options;
  options.host = endpoint.host;
  options.port = static_cast<uint16_t>(std::stoi(endpoint.port));
  DT_ASSIGN_OR_RETURN(options.threads, flags.GetInt("threads"));
  DT_ASSIGN_OR_RETURN(options.queue_depth, flags.GetInt("queue-depth"));
  DT_ASSIGN_OR_RETURN(int idle, flags.GetInt("idle-timeout"));
  DT_ASSIGN_OR_RETURN(int handshake, flags.GetInt("handshake-timeout"));
  DT_ASSIGN_OR_RETURN(int log_interval, flags.GetInt("log-interval"));
  DT_ASSIGN_OR_RETURN(options.max_clients, flags.GetInt("max-clients"));
  if (options.threads < 1 || options.queue_depth < 1 || idle < 1 || handshake < 1 ||
      options.max_clients < 1) {
    return InvalidArgument(
        "--threads, --queue-depth, --max-clients and the timeouts must be positive");
  }
  options.idle_timeout_s = idle;
  options.handshake_timeout_s = handshake;
  options.log_interval_s = log_interval;
  if (flags.Has("auth-file")) {
    DT_ASSIGN_OR_RETURN(options.secret, ReadSharedSecret(flags.Get("auth-file")));
  }
  DT_ASSIGN_OR_RETURN(ServedData served, ServedDataFromFlags(flags));
  DT_ASSIGN_OR_RETURN(std::shared_ptr<const BatchMaker> maker, BatchMaker::Open(served));
  DT_ASSIGN_OR_RETURN(auto server, DataServer::Start(options, maker));
  DT_LOG(INFO) << "data server: serving " << served.source << " (" << maker->record_count()
               << " records, " << (served.shipping == SHIP_RECORDS ? "records" : "float batches")
               << (served.batch_size ? ", batches of " + std::to_string(served.batch_size) : "")
               << (served.shuffle ? ", shuffled every epoch" : "")
               << (options.secret.empty() ? "" : ", shared secret required") << ")";
  // The exact address, also when the port was 0, for scripts that wait for this line.
  std::printf("listening on tcp://%s:%u\n", options.host.c_str(), server->port());
  std::fflush(stdout);
  WaitForStopSignal();
  server->Stop();
  const DataServerTotals totals = server->totals();
  DT_LOG(INFO) << "data server: served " << totals.batches << " batches, " << totals.bytes / 1e6
               << " MB to " << totals.connections << " connections (" << totals.rejected
               << " rejected)";
  return Status::Ok();
}

}  // namespace

Command DataServerCommand() {
  return {"data-server",
          "serve minibatches of an LMDB to training ranks over TCP (docs/data-server.md)",
          "",
          {{"listen",
            "tcp://ADDRESS:PORT to listen on; only that address is bound (port 0: any "
            "free port, printed)"},
           {"source", "the LMDB to serve (with --solver: instead of its Data layer's source)"},
           {"batch-size", "the per-rank batch clients must ask for (required with --source)"},
           {"solver",
            "serve the TRAIN Data, AnnotatedData or BoxData layer of this solver's net (a Data "
            "layer with its transform)"},
           {"ship",
            "records (workers transform; default with --source, and with --solver for "
            "AnnotatedData and BoxData) or floats (transformed here; default with --solver for "
            "Data)"},
           {"shuffle",
            "a new record order every epoch (drawn from --seed); the ranks still split "
            "each epoch disjointly",
            true},
           {"seed", "seed of --shuffle's orders", false, "1"},
           {"auth-file", "shared-secret file: only clients that know it may connect"},
           {"threads", "threads making and sending batches", false, "4"},
           {"queue-depth", "batches made ahead per client", false, "4"},
           {"handshake-timeout", "seconds a client has to authenticate, and to finish any frame",
            false, "10"},
           {"idle-timeout", "seconds a subscribed client may stay silent", false, "3600"},
           {"log-interval", "seconds between throughput lines; 0: none", false, "10"},
           {"max-clients", "connections served at once; more are refused", false, "256"}},
          RunDataServer};
}

}  // namespace dtrain
