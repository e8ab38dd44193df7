// AWS ParallelCluster 3 clusters for dtrain (`dtrain cluster aws`): options in, the text of
// cluster.yaml (for `pcluster create-cluster --cluster-configuration`) and of bootstrap.sh (the
// nodes' OnNodeConfigured action) out.
//
// The cluster: a head node (ssh, Slurm's controller, builds dtrain) and one Slurm queue "compute"
// of up to `nodes` instances of one type, started on demand (MinCount 0, MaxCount nodes) in a
// cluster placement group, with EFA when asked for; a shared file system (EFS, or FSx for Lustre)
// mounted at /shared on every node. bootstrap.sh fetches dtrain's source to /shared/dtrain and,
// on the head node only, installs its packages and builds it there (scripts/install-deps.sh,
// scripts/build.sh); compute nodes install the packages and run the head node's build from
// /shared. Since that build uses -march=native, the head node must have the compute nodes'
// processor: by default it is the smallest known type with it (c5.xlarge for c5n.18xlarge).
//
// Pure: nothing is read or written here; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// The most compute nodes one cluster may have here (ParallelCluster's own default limits are of
// this order per compute resource; raise them with AWS first for more).
constexpr int kMaxParallelClusterNodes = 1000;

struct ParallelClusterOptions {
  int nodes = 0;                       // 1..kMaxParallelClusterNodes
  std::string instance_type;           // compute nodes; a type of ec2_instance_types.h
  std::string key_name;                // EC2 key pair for ssh to the head node
  std::string subnet;                  // "subnet-0123abcd...": head node and compute nodes
  std::string region;                  // "us-east-1"
  bool efa = false;                    // EFA on the compute nodes (the type must have it)
  std::string shared_storage = "efs";  // "efs" or "fsx"
  std::string head_instance_type;      // "": the smallest known type with the compute processor
  std::string os = "ubuntu2204";       // "ubuntu2204" or "alinux2"
  std::string bootstrap_s3;  // where bootstrap.sh will be: "s3://bucket/key"; "": a placeholder
  std::string source;  // dtrain's source: s3://... .tar.gz or a git URL; "": next to bootstrap
};

struct ParallelClusterFiles {
  std::string cluster_yaml;
  std::string bootstrap_sh;
  std::vector<std::string> notes;  // what the user must still do (replace a placeholder, ...)
};

// Errors name the option: "--subnet 'sub-1': expected subnet- and 8 or 17 hex digits".
StatusOr<ParallelClusterFiles> ParallelClusterConfig(const ParallelClusterOptions& options);

}  // namespace dtrain
