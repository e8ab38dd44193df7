#include "solver/hdf5_snapshot.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <sstream>

#include "core/proto_checksum.h"
#include "core/proto_io.h"
#include "core/tensor.h"
#include "data/hdf5_file.h"
#include "net/read_net.h"
#include "solver/divergence.h"

namespace dtrain {
namespace {

// The root attributes dtrain adds (Caffe's readers ignore attributes): the checksum of the
// file's datasets, and in a solver state the checksum of the weights file written with it.
constexpr char kChecksumAttribute[] = "dtrain_checksum";
constexpr char kLearnedNetChecksumAttribute[] = "dtrain_learned_net_checksum";

// The file's checksum attribute, verified against its datasets; nullopt for a file without
// one (Caffe's).
StatusOr<std::optional<uint64_t>> VerifiedChecksum(const Hdf5FileReader& file,
                                                   const std::string& path) {
  DT_ASSIGN_OR_RETURN(const std::optional<uint64_t> sealed, file.RootAttribute(kChecksumAttribute));
  if (!sealed) return sealed;
  DT_ASSIGN_OR_RETURN(const uint64_t actual, file.ContentChecksum());
  if (actual != *sealed) return ChecksumMismatch(path);
  return sealed;
}

// Seals the file with its checksum and writes it; the checksum comes back.
StatusOr<uint64_t> SealAndWrite(Hdf5ImageWriter* file, const std::string& path) {
  DT_ASSIGN_OR_RETURN(const uint64_t checksum, file->ContentChecksum());
  DT_RETURN_IF_ERROR(file->PutRootAttribute(kChecksumAttribute, checksum));
  DT_RETURN_IF_ERROR(file->WriteAtomically(path));
  return checksum;
}

// Refuses values no run writes, so that a damaged file (random bytes where floats were) is
// named here and never trains to be reported as divergence: non-finite ones, and with
// `max_magnitude` > 0 ones beyond it.
Status CheckValues(const Hdf5Array& array, const std::string& path, const std::string& dataset,
                   float max_magnitude) {
  for (size_t i = 0; i < array.values.size(); ++i) {
    const float v = array.values[i];
    if (std::isfinite(v) && (max_magnitude <= 0 || std::fabs(v) <= max_magnitude)) continue;
    std::ostringstream text;
    text << path << ": dataset '" << dataset << "' holds " << v << " (value " << i << " of "
         << array.values.size() << "); ";
    if (max_magnitude > 0) {
      text << "weights that training writes are finite and within " << max_magnitude;
    } else {
      text << "a solver's history is finite";
    }
    text << " (a damaged file?)";
    return DataLoss(text.str());
  }
  return Status::Ok();
}

void SetShape(const std::vector<int>& shape, BlobProto* blob) {
  blob->mutable_shape()->clear_dim();
  for (int d : shape) blob->mutable_shape()->add_dim(d);
}

// Blob i of every layer under `root` ("data" or "diff"), in file order: each layer is the group
// (or nested group path) that holds a dataset "0".
Status ReadBlobGroups(const Hdf5FileReader& file, const std::string& root, bool diff,
                      NetParameter* net) {
  std::function<Status(const std::string&)> walk = [&](const std::string& layer) -> Status {
    const std::string group = layer.empty() ? root : root + "/" + layer;
    if (!layer.empty() && file.Has(group + "/0")) {  // this group is a layer's
      LayerParameter* lp = nullptr;
      for (LayerParameter& existing : *net->mutable_layer()) {
        if (existing.name() == layer) lp = &existing;
      }
      if (!lp) {
        lp = net->add_layer();
        lp->set_name(layer);
      }
      for (int i = 0; file.Has(group + "/" + std::to_string(i)); ++i) {
        const std::string dataset = group + "/" + std::to_string(i);
        DT_ASSIGN_OR_RETURN(const Hdf5Array array, file.Floats(dataset));
        if (!diff) DT_RETURN_IF_ERROR(CheckValues(array, file.path(), dataset, kDivergedMagnitude));
        while (lp->blobs_size() <= i) lp->add_blobs();
        BlobProto* blob = lp->mutable_blobs(i);
        SetShape(array.shape, blob);
        auto* values = diff ? blob->mutable_diff() : blob->mutable_data();
        values->Assign(array.values.begin(), array.values.end());
      }
    }
    // Other members are layers whose names continue this one's ("conv1" and "conv1/relu").
    DT_ASSIGN_OR_RETURN(const std::vector<std::string> members, file.Members(group));
    for (const std::string& member : members) {
      if (std::all_of(member.begin(), member.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        continue;  // a blob
      }
      DT_RETURN_IF_ERROR(walk(layer.empty() ? member : layer + "/" + member));
    }
    return Status::Ok();
  };
  return walk("");
}

bool EndsWith(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

bool IsHdf5SnapshotPath(const std::string& path) { return EndsWith(path, ".h5"); }

Status WriteWeightsHdf5(const NetParameter& weights, const std::string& path, uint64_t* checksum) {
  DT_ASSIGN_OR_RETURN(auto file, Hdf5ImageWriter::Create());
  DT_RETURN_IF_ERROR(file->PutGroup("data"));
  bool has_diff = false;
  for (const LayerParameter& layer : weights.layer()) {
    for (const BlobProto& blob : layer.blobs()) has_diff |= blob.diff_size() > 0;
  }
  if (has_diff) DT_RETURN_IF_ERROR(file->PutGroup("diff"));
  for (const LayerParameter& layer : weights.layer()) {
    DT_RETURN_IF_ERROR(file->PutGroup("data/" + layer.name()));
    if (has_diff) DT_RETURN_IF_ERROR(file->PutGroup("diff/" + layer.name()));
    for (int i = 0; i < layer.blobs_size(); ++i) {
      const BlobProto& blob = layer.blobs(i);
      Tensor shaped;
      DT_RETURN_IF_ERROR(
          shaped.FromProto(blob, /*reshape=*/true)
              .WithContext(path + ": layer '" + layer.name() + "' blob " + std::to_string(i)));
      const std::string name = "/" + layer.name() + "/" + std::to_string(i);
      DT_RETURN_IF_ERROR(file->PutFloats("data" + name, shaped.shape(), shaped.data()));
      if (has_diff) {
        std::vector<float> diff(blob.diff().begin(), blob.diff().end());
        diff.resize(static_cast<size_t>(shaped.count()), 0.f);
        DT_RETURN_IF_ERROR(file->PutFloats("diff" + name, shaped.shape(), diff.data()));
      }
    }
  }
  DT_ASSIGN_OR_RETURN(const uint64_t sealed, SealAndWrite(file.get(), path));
  if (checksum) *checksum = sealed;
  return Status::Ok();
}

StatusOr<NetParameter> ReadWeightsHdf5(const std::string& path) {
  DT_ASSIGN_OR_RETURN(auto file, Hdf5FileReader::Open(path));
  if (!file->Has("data"))
    return DataLoss(path + ": no group 'data' (not a Caffe HDF5 weights file)");
  DT_ASSIGN_OR_RETURN(const std::optional<uint64_t> checksum, VerifiedChecksum(*file, path));
  NetParameter net;
  DT_RETURN_IF_ERROR(ReadBlobGroups(*file, "data", /*diff=*/false, &net));
  if (file->Has("diff")) DT_RETURN_IF_ERROR(ReadBlobGroups(*file, "diff", /*diff=*/true, &net));
  if (checksum) net.set_dtrain_checksum(*checksum);
  return net;
}

Status WriteSolverStateHdf5(const SolverState& state, const std::string& path) {
  DT_ASSIGN_OR_RETURN(auto file, Hdf5ImageWriter::Create());
  DT_RETURN_IF_ERROR(file->PutInt("iter", state.iter()));
  DT_RETURN_IF_ERROR(file->PutString("learned_net", state.learned_net()));
  DT_RETURN_IF_ERROR(file->PutInt("current_step", state.current_step()));
  DT_RETURN_IF_ERROR(file->PutGroup("history"));
  for (int i = 0; i < state.history_size(); ++i) {
    Tensor shaped;
    DT_RETURN_IF_ERROR(shaped.FromProto(state.history(i), /*reshape=*/true)
                           .WithContext(path + ": history blob " + std::to_string(i)));
    DT_RETURN_IF_ERROR(
        file->PutFloats("history/" + std::to_string(i), shaped.shape(), shaped.data()));
  }
  if (state.layer_state_size() > 0) DT_RETURN_IF_ERROR(file->PutGroup("dtrain_layer_state"));
  for (int k = 0; k < state.layer_state_size(); ++k) {
    const std::string entry = "dtrain_layer_state/" + std::to_string(k);
    DT_RETURN_IF_ERROR(file->PutString(entry + "/name", state.layer_state(k).layer()));
    DT_RETURN_IF_ERROR(file->PutBytes(entry + "/state", state.layer_state(k).state()));
  }
  if (state.has_dtrain_learned_net_checksum()) {
    DT_RETURN_IF_ERROR(
        file->PutRootAttribute(kLearnedNetChecksumAttribute, state.dtrain_learned_net_checksum()));
  }
  return SealAndWrite(file.get(), path).status();
}

StatusOr<SolverState> ReadSolverStateHdf5(const std::string& path) {
  DT_ASSIGN_OR_RETURN(auto file, Hdf5FileReader::Open(path));
  DT_RETURN_IF_ERROR(VerifiedChecksum(*file, path).status());
  SolverState state;
  DT_ASSIGN_OR_RETURN(const std::optional<uint64_t> learned_net_checksum,
                      file->RootAttribute(kLearnedNetChecksumAttribute));
  if (learned_net_checksum) state.set_dtrain_learned_net_checksum(*learned_net_checksum);
  DT_ASSIGN_OR_RETURN(const int iter, file->Int("iter"));
  state.set_iter(iter);
  DT_ASSIGN_OR_RETURN(const std::string learned_net, file->String("learned_net"));
  if (!learned_net.empty()) state.set_learned_net(learned_net);
  if (file->Has("current_step")) {
    DT_ASSIGN_OR_RETURN(const int step, file->Int("current_step"));
    state.set_current_step(step);
  }
  for (int i = 0; file->Has("history/" + std::to_string(i)); ++i) {
    const std::string dataset = "history/" + std::to_string(i);
    DT_ASSIGN_OR_RETURN(const Hdf5Array array, file->Floats(dataset));
    DT_RETURN_IF_ERROR(CheckValues(array, path, dataset, /*max_magnitude=*/0));
    BlobProto* blob = state.add_history();
    SetShape(array.shape, blob);
    blob->mutable_data()->Assign(array.values.begin(), array.values.end());
  }
  for (int k = 0; file->Has("dtrain_layer_state/" + std::to_string(k)); ++k) {
    const std::string entry = "dtrain_layer_state/" + std::to_string(k);
    LayerState* layer = state.add_layer_state();
    DT_ASSIGN_OR_RETURN(const std::string name, file->String(entry + "/name"));
    DT_ASSIGN_OR_RETURN(const std::string bytes, file->String(entry + "/state"));
    layer->set_layer(name);
    layer->set_state(bytes);
  }
  return state;
}

StatusOr<NetParameter> ReadWeightsFile(const std::string& path) {
  if (!IsHdf5SnapshotPath(path)) return ReadBinaryNetParameter(path);
  return ReadWeightsHdf5(path);
}

StatusOr<SolverState> ReadSolverStateFile(const std::string& path) {
  if (IsHdf5SnapshotPath(path)) return ReadSolverStateHdf5(path);
  SolverState state;
  const Status read = ReadBinaryProto(path, &state);
  // A .caffemodel given where a .solverstate belongs fails to parse as one, or parses into
  // fields a solver state does not have (protobuf keeps them as unknown fields): say so.
  if (!read.ok() || state.GetReflection()->GetUnknownFields(state).field_count() > 0) {
    NetParameter weights;
    if (ReadBinaryProto(path, &weights).ok() && weights.layer_size() + weights.layers_size() > 0) {
      return InvalidArgument(path +
                             " holds a net's weights (a .caffemodel), not a solver state: "
                             "resume with the .solverstate written with it (--snapshot), or "
                             "fine-tune from these weights with --weights");
    }
    DT_RETURN_IF_ERROR(read);
  }
  DT_RETURN_IF_ERROR(VerifyChecksum(state, path));
  return state;
}

}  // namespace dtrain
