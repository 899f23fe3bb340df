"""How an API call fails: a gRPC status code by name and one line that says why.

Why not grpc.StatusCode here: the rules of the API (single_api.py, the distributed master's)
are pure and tested without a server; the server maps the name to the status (server.py)."""
from __future__ import annotations

from typing import Final, Literal

Code = Literal["INVALID_ARGUMENT", "NOT_FOUND", "FAILED_PRECONDITION", "UNAVAILABLE", "UNIMPLEMENTED",
               "ALREADY_EXISTS", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED", "INTERNAL", "UNAUTHENTICATED"]
MAX_MESSAGE: Final = 400  # characters of an error's message


class ApiError(Exception):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message[:MAX_MESSAGE])
        self.code: Code = code
        self.message = message[:MAX_MESSAGE]
