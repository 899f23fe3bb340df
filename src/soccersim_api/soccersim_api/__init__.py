"""soccersim's core API over gRPC: the versioned proto (`v1/soccersim.proto`), its generated
Python modules, and a typed client (`soccersim_api.client`). Needs grpcio and protobuf only."""
