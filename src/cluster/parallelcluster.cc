#include "cluster/parallelcluster.h"

#include <regex>

#include "cluster/ec2_instance_types.h"
#include "cluster/parallelcluster_bootstrap.h"
#include "cluster/yaml_writer.h"

namespace dtrain {
namespace {

const char* kPlaceholderBucket = "your-bucket";

bool Matches(const std::string& text, const char* pattern) {
  return std::regex_match(text, std::regex(pattern));
}

// "s3://bucket/key" -> "bucket"; "" for other URLs.
std::string S3Bucket(const std::string& url) {
  if (url.rfind("s3://", 0) != 0) return "";
  return url.substr(5, url.find('/', 5) - 5);
}

Status CheckS3Url(const std::string& flag, const std::string& url) {
  if (!Matches(url, "s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/[A-Za-z0-9!_.*'()/+=@,-]+")) {
    return InvalidArgument(flag + " '" + url +
                           "': expected s3://BUCKET/KEY (a bucket name of "
                           "3 to 63 lowercase letters, digits, '.' and '-')");
  }
  return Status::Ok();
}

Yaml S3Access(const std::vector<std::string>& buckets) {
  Yaml list = Yaml::List();
  for (const std::string& bucket : buckets) {
    list.Add(Yaml::Map()
                 .Set("BucketName", Yaml::String(bucket))
                 .Set("EnableWriteAccess", Yaml::Bool(false)));
  }
  return list;
}

Yaml OnNodeConfigured(const std::string& script, const std::string& role) {
  return Yaml::Map().Set("OnNodeConfigured",
                         Yaml::Map()
                             .Set("Script", Yaml::String(script))
                             .Set("Args", Yaml::List().Add(Yaml::String(role))));
}

}  // namespace

StatusOr<ParallelClusterFiles> ParallelClusterConfig(const ParallelClusterOptions& o) {
  if (o.nodes < 1 || o.nodes > kMaxParallelClusterNodes) {
    return InvalidArgument("--nodes must be 1 to " + std::to_string(kMaxParallelClusterNodes) +
                           ", got " + std::to_string(o.nodes));
  }
  const Ec2InstanceType* compute = FindEc2InstanceType(o.instance_type);
  if (!compute) {
    return InvalidArgument("--instance-type '" + o.instance_type +
                           "' is not one dtrain knows; known: " + Ec2InstanceTypeNames());
  }
  if (o.efa && !compute->efa) {
    std::string with;
    for (const Ec2InstanceType& t : Ec2InstanceTypes()) {
      if (t.efa) with += (with.empty() ? "" : ", ") + std::string(t.name);
    }
    return InvalidArgument("--efa: " + o.instance_type + " has no EFA; types with EFA: " + with);
  }
  const Ec2InstanceType* head = o.head_instance_type.empty()
                                    ? SmallestWithCpu(compute->cpu, 4)
                                    : FindEc2InstanceType(o.head_instance_type);
  if (!head) {
    return InvalidArgument("--head-instance-type '" + o.head_instance_type +
                           "' is not one dtrain knows; known: " + Ec2InstanceTypeNames());
  }
  if (std::string(head->name).rfind("hpc", 0) == 0) {
    return InvalidArgument(
        "--head-instance-type " + std::string(head->name) +
        " is an HPC type: ParallelCluster refuses hpc6id for a head node, and the "
        "others idle at HPC prices; use e.g. " +
        SmallestWithCpu(head->cpu, 4)->name);
  }
  if (std::string(head->cpu) != compute->cpu) {
    return InvalidArgument(
        "--head-instance-type " + std::string(head->name) + " has a " + head->cpu +
        " processor, the compute nodes (" + compute->name + ") a " + compute->cpu +
        " one: the head node builds dtrain for its own processor (-march=native) "
        "and the compute nodes run that build, so they must match");
  }
  if (!Matches(o.region, "[a-z]{2}(-gov)?-[a-z]+-[0-9]")) {
    return InvalidArgument("--region '" + o.region + "': expected a region name like us-east-1");
  }
  if (!Matches(o.subnet, "subnet-([0-9a-f]{8}|[0-9a-f]{17})")) {
    return InvalidArgument("--subnet '" + o.subnet +
                           "': expected subnet- and 8 or 17 hex digits "
                           "(subnet-0123456789abcdef0)");
  }
  if (!Matches(o.key_name, "[A-Za-z0-9._@+=,:-]{1,255}")) {
    return InvalidArgument("--key-name '" + o.key_name +
                           "': expected the name of an EC2 key pair "
                           "(letters, digits and ._@+=,:- only)");
  }
  if (o.shared_storage != "efs" && o.shared_storage != "fsx") {
    return InvalidArgument("--shared-storage '" + o.shared_storage + "': expected efs or fsx");
  }
  if (o.os != "ubuntu2204" && o.os != "alinux2") {
    return InvalidArgument("--os '" + o.os + "': expected ubuntu2204 or alinux2");
  }

  ParallelClusterFiles files;
  std::string bootstrap = o.bootstrap_s3;
  if (bootstrap.empty()) {
    bootstrap = "s3://" + std::string(kPlaceholderBucket) + "/dtrain/bootstrap.sh";
    files.notes.push_back("cluster.yaml names " + bootstrap +
                          " as the nodes' bootstrap: replace it (and the bucket " +
                          kPlaceholderBucket +
                          ") with where you upload bootstrap.sh, or rerun "
                          "with --bootstrap-s3=s3://BUCKET/KEY");
  } else {
    DT_RETURN_IF_ERROR(CheckS3Url("--bootstrap-s3", bootstrap));
  }
  std::string source = o.source;
  if (source.empty()) {
    source = bootstrap.substr(0, bootstrap.rfind('/') + 1) + "dtrain-src.tar.gz";
    files.notes.push_back(
        "bootstrap.sh fetches dtrain's source from " + source +
        ": upload it there (git archive --format=tar.gz -o dtrain-src.tar.gz HEAD)"
        ", or rerun with --source=URL");
  } else if (source.rfind("s3://", 0) == 0) {
    DT_RETURN_IF_ERROR(CheckS3Url("--source", source));
  } else if (!Matches(source, "(https://|git@)[A-Za-z0-9._@:/~+-]+")) {
    return InvalidArgument(
        "--source '" + source +
        "': expected s3://BUCKET/KEY.tar.gz or a git URL (https://... or git@...)");
  }
  if (o.os == "alinux2") {
    files.notes.push_back(
        "alinux2: bootstrap.sh installs packages with apt (scripts/install-deps.sh "
        "is for Debian and Ubuntu), so on Amazon Linux 2 it only fetches the source; "
        "install the dependencies and build by hand, or use --os=ubuntu2204");
  }
  std::vector<std::string> buckets = {S3Bucket(bootstrap)};
  if (!S3Bucket(source).empty() && S3Bucket(source) != buckets[0])
    buckets.push_back(S3Bucket(source));

  Yaml config = Yaml::Map();
  config.Set("Region", Yaml::String(o.region));
  config.Set("Image", Yaml::Map().Set("Os", Yaml::String(o.os)));
  config.Set("HeadNode",
             Yaml::Map()
                 .Set("InstanceType", Yaml::String(head->name))
                 .Set("Networking", Yaml::Map().Set("SubnetId", Yaml::String(o.subnet)))
                 .Set("Ssh", Yaml::Map().Set("KeyName", Yaml::String(o.key_name)))
                 .Set("CustomActions", OnNodeConfigured(bootstrap, "head"),
                      "Fetches dtrain to /shared/dtrain, installs its packages, builds it.")
                 .Set("Iam", Yaml::Map().Set("S3Access", S3Access(buckets))),
             "Builds dtrain (for its processor, which is the compute nodes'), runs Slurm's "
             "controller;\nssh here.");
  Yaml resource = Yaml::Map();
  std::string resource_name;
  for (char c : o.instance_type) {
    if (c != '.') resource_name += c;
  }
  resource.Set("Name", Yaml::String(resource_name))
      .Set("InstanceType", Yaml::String(compute->name))
      .Set("MinCount", Yaml::Int(0))
      .Set("MaxCount", Yaml::Int(o.nodes));
  if (o.efa) resource.Set("Efa", Yaml::Map().Set("Enabled", Yaml::Bool(true)));
  Yaml queue = Yaml::Map();
  queue.Set("Name", Yaml::String("compute"))
      .Set("CapacityType", Yaml::String("ONDEMAND"))
      .Set("ComputeResources", Yaml::List().Add(resource),
           "Up to " + std::to_string(o.nodes) + " x " + o.instance_type + " (" +
               std::to_string(compute->vcpus) + " vCPUs each), started when jobs need them.")
      .Set("Networking", Yaml::Map()
                             .Set("SubnetIds", Yaml::List().Add(Yaml::String(o.subnet)))
                             .Set("PlacementGroup", Yaml::Map().Set("Enabled", Yaml::Bool(true))))
      .Set("CustomActions", OnNodeConfigured(bootstrap, "compute"),
           "Installs dtrain's packages; runs the head node's build from /shared.")
      .Set("Iam", Yaml::Map().Set("S3Access", S3Access(buckets)));
  config.Set("Scheduling", Yaml::Map()
                               .Set("Scheduler", Yaml::String("slurm"))
                               .Set("SlurmQueues", Yaml::List().Add(queue)));
  Yaml storage = Yaml::Map();
  storage.Set("MountDir", Yaml::String("/shared")).Set("Name", Yaml::String("dtrain-shared"));
  if (o.shared_storage == "efs") {
    storage.Set("StorageType", Yaml::String("Efs"))
        .Set("EfsSettings", Yaml::Map()
                                .Set("PerformanceMode", Yaml::String("generalPurpose"))
                                .Set("ThroughputMode", Yaml::String("bursting"))
                                .Set("Encrypted", Yaml::Bool(true)));
  } else {
    storage.Set("StorageType", Yaml::String("FsxLustre"))
        .Set("FsxLustreSettings", Yaml::Map()
                                      .Set("StorageCapacity", Yaml::Int(1200))
                                      .Set("DeploymentType", Yaml::String("SCRATCH_2")));
  }
  config.Set("SharedStorage", Yaml::List().Add(storage),
             "On every node at /shared: dtrain's source and build, data, snapshots.");

  config.Set(
      "DevSettings",
      Yaml::Map().Set("Timeouts", Yaml::Map().Set("HeadNodeBootstrapTimeout", Yaml::Int(3600))),
      "The head node installs dtrain's packages and builds it while the cluster is\n"
      "created: allow it an hour (ParallelCluster's default is 30 minutes).");

  files.cluster_yaml =
      "# AWS ParallelCluster 3 configuration for dtrain, written by `dtrain cluster aws`.\n"
      "# pcluster create-cluster --cluster-name dtrain --cluster-configuration cluster.yaml\n" +
      config.Emit();
  files.bootstrap_sh = ParallelClusterBootstrap(source, "/shared");
  return files;
}

}  // namespace dtrain
