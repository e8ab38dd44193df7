"""Caffe's caffe_pb2: every message and enum of dtrain's schema (proto/*.proto, whose names,
fields and numbers are Caffe's), generated at build time by protoc --python_out into this folder
(net_pb2, solver_pb2, ...) and gathered here under one name, as pycaffe's single caffe.proto
gave them. Needs Python's protobuf (Debian's python3-protobuf)."""

try:
    import google.protobuf  # noqa: F401
except ImportError as error:
    raise ImportError("caffe.proto.caffe_pb2 needs Python's protobuf package (Debian's "
                      "python3-protobuf, scripts/install-deps.sh)") from error

try:
    from .blob_pb2 import *  # noqa: F401,F403
    from .filler_pb2 import *  # noqa: F401,F403
    from .annotation_pb2 import *  # noqa: F401,F403
    from .layer_params_pb2 import *  # noqa: F401,F403
    from .detection_params_pb2 import *  # noqa: F401,F403
    from .net_pb2 import *  # noqa: F401,F403
    from .solver_pb2 import *  # noqa: F401,F403
except ImportError as error:
    raise ImportError("caffe.proto.caffe_pb2: the generated modules are missing (the build "
                      "writes them when it finds Python's protobuf at configure time): %s" %
                      error) from error
