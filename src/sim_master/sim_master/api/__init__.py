"""The master's core API over gRPC (proto package soccersim.v1, in soccersim_api): the
conversions from our contracts, the stream hubs, the handlers and the aio server."""
