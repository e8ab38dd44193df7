#include "cluster/ec2_instance_types.h"

namespace dtrain {
const std::vector<Ec2InstanceType>& Ec2InstanceTypes() {
  static const std::vector<Ec2InstanceType> types = {
      // Compute optimised: Intel Skylake/Cascade Lake (c5), with 100 Gbit/s networking (c5n).
      {"c5.large", 2, false, "skylake"},
      {"c5.xlarge", 4, false, "skylake"},
      {"c5.2xlarge", 8, false, "skylake"},
      {"c5.4xlarge", 16, false, "skylake"},
      {"c5.9xlarge", 36, false, "skylake"},
      {"c5.12xlarge", 48, false, "skylake"},
      {"c5.18xlarge", 72, false, "skylake"},
      {"c5.24xlarge", 96, false, "skylake"},
      {"c5n.large", 2, false, "skylake"},
      {"c5n.xlarge", 4, false, "skylake"},
      {"c5n.2xlarge", 8, false, "skylake"},
      {"c5n.4xlarge", 16, false, "skylake"},
      {"c5n.9xlarge", 36, true, "skylake"},
      {"c5n.18xlarge", 72, true, "skylake"},
      // Ice Lake (c6i), with 200 Gbit/s networking (c6in).
      {"c6i.large", 2, false, "icelake"},
      {"c6i.xlarge", 4, false, "icelake"},
      {"c6i.2xlarge", 8, false, "icelake"},
      {"c6i.4xlarge", 16, false, "icelake"},
      {"c6i.8xlarge", 32, false, "icelake"},
      {"c6i.12xlarge", 48, false, "icelake"},
      {"c6i.16xlarge", 64, false, "icelake"},
      {"c6i.24xlarge", 96, false, "icelake"},
      {"c6i.32xlarge", 128, true, "icelake"},
      {"c6in.large", 2, false, "icelake"},
      {"c6in.xlarge", 4, false, "icelake"},
      {"c6in.2xlarge", 8, false, "icelake"},
      {"c6in.4xlarge", 16, false, "icelake"},
      {"c6in.8xlarge", 32, false, "icelake"},
      {"c6in.12xlarge", 48, false, "icelake"},
      {"c6in.16xlarge", 64, false, "icelake"},
      {"c6in.24xlarge", 96, false, "icelake"},
      {"c6in.32xlarge", 128, true, "icelake"},
      // Sapphire Rapids (c7i).
      {"c7i.large", 2, false, "sapphirerapids"},
      {"c7i.xlarge", 4, false, "sapphirerapids"},
      {"c7i.2xlarge", 8, false, "sapphirerapids"},
      {"c7i.4xlarge", 16, false, "sapphirerapids"},
      {"c7i.8xlarge", 32, false, "sapphirerapids"},
      {"c7i.12xlarge", 48, false, "sapphirerapids"},
      {"c7i.16xlarge", 64, false, "sapphirerapids"},
      {"c7i.24xlarge", 96, false, "sapphirerapids"},
      {"c7i.48xlarge", 192, true, "sapphirerapids"},
      // General purpose.
      {"m5.large", 2, false, "skylake"},
      {"m5.xlarge", 4, false, "skylake"},
      {"m5.2xlarge", 8, false, "skylake"},
      {"m5.4xlarge", 16, false, "skylake"},
      {"m5.8xlarge", 32, false, "skylake"},
      {"m5.12xlarge", 48, false, "skylake"},
      {"m5.16xlarge", 64, false, "skylake"},
      {"m5.24xlarge", 96, false, "skylake"},
      {"m5n.24xlarge", 96, true, "skylake"},
      {"m6i.large", 2, false, "icelake"},
      {"m6i.xlarge", 4, false, "icelake"},
      {"m6i.2xlarge", 8, false, "icelake"},
      {"m6i.4xlarge", 16, false, "icelake"},
      {"m6i.8xlarge", 32, false, "icelake"},
      {"m6i.12xlarge", 48, false, "icelake"},
      {"m6i.16xlarge", 64, false, "icelake"},
      {"m6i.24xlarge", 96, false, "icelake"},
      {"m6i.32xlarge", 128, true, "icelake"},
      // Memory optimised.
      {"r5.large", 2, false, "skylake"},
      {"r5.xlarge", 4, false, "skylake"},
      {"r5.2xlarge", 8, false, "skylake"},
      {"r5.4xlarge", 16, false, "skylake"},
      {"r5.8xlarge", 32, false, "skylake"},
      {"r5.12xlarge", 48, false, "skylake"},
      {"r5.16xlarge", 64, false, "skylake"},
      {"r5.24xlarge", 96, false, "skylake"},
      {"r5n.24xlarge", 96, true, "skylake"},
      {"r6i.large", 2, false, "icelake"},
      {"r6i.xlarge", 4, false, "icelake"},
      {"r6i.32xlarge", 128, true, "icelake"},
      // HPC: AMD (hpc6a, hpc7a), Intel (hpc6id), Graviton3E (hpc7g, arm64); all with EFA.
      {"hpc6a.48xlarge", 96, true, "milan"},
      {"hpc6id.32xlarge", 64, true, "icelake"},
      {"hpc7a.96xlarge", 192, true, "genoa"},
      {"hpc7g.4xlarge", 16, true, "graviton3"},
      {"hpc7g.8xlarge", 32, true, "graviton3"},
      {"hpc7g.16xlarge", 64, true, "graviton3"},
      // Small types of the HPC types' processors, for a head node that builds for them.
      {"c6a.xlarge", 4, false, "milan"},
      {"c6a.2xlarge", 8, false, "milan"},
      {"c7a.xlarge", 4, false, "genoa"},
      {"c7a.2xlarge", 8, false, "genoa"},
      {"c7g.xlarge", 4, false, "graviton3"},
      {"c7g.2xlarge", 8, false, "graviton3"},
  };
  return types;
}

const Ec2InstanceType* FindEc2InstanceType(const std::string& name) {
  for (const Ec2InstanceType& type : Ec2InstanceTypes()) {
    if (name == type.name) return &type;
  }
  return nullptr;
}

const Ec2InstanceType* SmallestWithCpu(const std::string& cpu, int min_vcpus) {
  const Ec2InstanceType* best = nullptr;
  for (const Ec2InstanceType& type : Ec2InstanceTypes()) {
    if (cpu != type.cpu || type.vcpus < min_vcpus) continue;
    if (!best || type.vcpus < best->vcpus) best = &type;
  }
  return best;
}

std::string Ec2InstanceTypeNames() {
  std::string names;
  for (const Ec2InstanceType& type : Ec2InstanceTypes()) {
    names += (names.empty() ? "" : ", ") + std::string(type.name);
  }
  return names;
}

}  // namespace dtrain
