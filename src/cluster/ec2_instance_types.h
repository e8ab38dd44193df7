// The EC2 instance types `dtrain cluster aws` knows: CPU instances that suit dtrain (compute
// optimised, general purpose, memory optimised and HPC families), with their vCPUs, CPU
// processor and whether they take an Elastic Fabric Adapter (EFA). From AWS's instance type
// and EFA documentation (2024): within these families only the largest sizes have EFA, e.g.
// c5n.9xlarge/18xlarge, c6i.32xlarge, c6in.32xlarge, c7i.48xlarge, m6i.32xlarge, r6i.32xlarge and
// every hpc* type; no c5, m5 or r5 size has one (their *n variants do). `aws ec2
// describe-instance-types --instance-types T` is the authority when in doubt.
//
// A fixed table; lookups are pure and thread-safe.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

struct Ec2InstanceType {
  const char* name;  // "c5n.18xlarge"
  int vcpus;         // hyperthreads: twice the physical cores where SMT is on
  bool efa;          // takes an EFA network interface
  // The processor generation: "skylake" (Skylake/Cascade Lake), "icelake", "sapphirerapids",
  // "milan", "genoa" or "graviton3" (the only arm64 one). A build made with -march=native on one
  // runs on the types with the same processor.
  const char* cpu;
};

// Every known type, by family then size.
const std::vector<Ec2InstanceType>& Ec2InstanceTypes();
// The type called `name`, or nullptr.
const Ec2InstanceType* FindEc2InstanceType(const std::string& name);
// The smallest known type with processor `cpu` and at least `min_vcpus` vCPUs, or nullptr.
const Ec2InstanceType* SmallestWithCpu(const std::string& cpu, int min_vcpus);
// "c5.large, c5.xlarge, ...": the names, for error messages.
std::string Ec2InstanceTypeNames();

}  // namespace dtrain
