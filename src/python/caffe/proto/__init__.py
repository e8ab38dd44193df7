"""caffe.proto: caffe_pb2, Caffe's messages generated from dtrain's schema (proto/*.proto)."""
