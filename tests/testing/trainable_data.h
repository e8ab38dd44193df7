// Small learnable data sets for solver and end-to-end tests: an LMDB of `count` Datums of
// channels x size x size whose label (i % classes) is written into the image as a bright patch,
// so that a net can learn it, on top of seeded noise.
#pragma once

#include <string>

namespace dtrain::testing {

void WriteTrainableLmdb(const std::string& path, int count, int channels, int size, int classes,
                        unsigned seed = 1);

}  // namespace dtrain::testing
