// bootstrap.sh, the OnNodeConfigured action that `dtrain cluster aws` gives every node of an AWS
// ParallelCluster 3 cluster; ParallelCluster runs it as root, with the node's role as argument:
//
//   head:    fetches dtrain's source into SHARED/dtrain (once: a rerun keeps what is there),
//            installs its packages (scripts/install-deps.sh) and builds it (scripts/build.sh,
//            without the tests) in SHARED/dtrain/build, visible to every node;
//   compute: waits for that build, installs the packages (the libraries it links: packages are
//            per machine, the build is shared) and links /usr/local/bin/dtrain to it.
//
// The nodes already run ParallelCluster's own Slurm (with PMIx) and munge, so the Slurm and munge
// packages that install-deps.sh installs for dtrain's local test cluster are skipped
// (DTRAIN_SKIP_PACKAGES), as are the fuzzing compilers. Where there is no apt-get (Amazon Linux),
// it only fetches the source and says so. Everything it prints goes to
// /var/log/dtrain-bootstrap.log too.
//
// Pure: returns the script's text; thread-safe.
#pragma once

#include <string>

namespace dtrain {

// `source`: s3://BUCKET/KEY of a .tar.gz of the source tree (fetched with `aws s3 cp`), or a git
// URL (cloned). `shared`: the shared file system's mount point ("/shared").
std::string ParallelClusterBootstrap(const std::string& source, const std::string& shared);

}  // namespace dtrain
