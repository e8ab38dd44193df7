// Python layers in a program: installs the factory of type "Python" in the layer registry
// (layers/registry.h, SetPythonLayerFactory). Call once at start, before any net is built.
//
// kStartOnFirstLayer is for the dtrain command, which embeds Python: the interpreter starts when
// the first Python layer is created (a net without one never starts it), without Python's signal
// handlers (SIGINT and SIGTERM stay dtrain's, run/signal_actions.h), and is released (the GIL
// free) until a layer calls into it. It is deliberately never finalised: layers, and NumPy arrays
// that Python code kept, may outlive any point where finalising would be safe, and NumPy cannot be
// started twice in one process; Python's stdout and stderr are flushed at exit instead. A module
// `_dtrain_embedded` marks that interpreter, so that `import dtrain` refuses to load a second copy
// of dtrain into the command.
//
// kRunning is for the _dtrain module: layers use the interpreter that imported it.
#pragma once

namespace dtrain::pylayer {

enum class Interpreter { kStartOnFirstLayer, kRunning };

void InstallPythonLayers(Interpreter interpreter);

}  // namespace dtrain::pylayer
