"""The core API's gRPC server (grpcio's asyncio server on a thread of its own).

Why asyncio: twenty streams and two hundred calls in flight must not mean two hundred
threads contending with the simulation for the interpreter. Unary calls hand their work to
the simulation's thread through the API's own LoopCalls (run there within a time budget per
cycle by the owner, e.g. api/feed.py) and await the answer; streams await the hubs.

Surfaces and limits (the rules every surface keeps):
- loopback by default; another address needs TLS (cert and key) and a token, or an explicit
  `insecure`; with a token set, every call but health and reflection carries it
  (`authorization: Bearer <token>` metadata), on loopback too;
- MAX_CALLS calls in flight (grpc answers RESOURCE_EXHAUSTED beyond), MAX_STREAMS open
  streams, MAX_RECEIVE bytes per request (an SDF model's text fits), CALL_TIMEOUT_S for the
  simulation to answer a call (UNAVAILABLE after);
- every failure is a status code and one line; an exception nobody foresaw is INTERNAL, logged
  once per kind, and the server answers the next call."""
from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import math
import os
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

# grpc's C core prints its own lines (a bind that failed, every failed TLS handshake of a
# stranger) before ours; the server says what failed, once, so the core keeps quiet
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from sim_master.api.errors import ApiError
from sim_master.api.hub import GameHub, SnapshotHub
from sim_master.master.loop_calls import LoopCalls, LoopCallTimeout
from soccersim_api.v1 import soccersim_pb2 as pb

_log = logging.getLogger("soccersim.api")
T = TypeVar("T")

PACKAGE: Final = "soccersim.v1"
MAX_CALLS: Final = 512  # calls in flight, streams included
MAX_STREAMS: Final = 64  # open streams of all kinds
MAX_RECEIVE: Final = (1 << 20) + (64 << 10)  # a request: an SDF model's text (1 MB) and the rest
MAX_SEND: Final = 64 << 20  # a full snapshot of a crowded world
CALL_TIMEOUT_S: Final = 10.0
STEP_TIMEOUT_S: Final = 120.0
MIN_RATE_HZ: Final = 0.01  # a stream's slowest asked rate (one message per 100 s)
OPEN_TO_ALL: Final = ("/grpc.health.v1.Health/", "/grpc.reflection.")


class SetupError(ValueError):
    """The API cannot be served as configured (one line naming the flag)."""


@dataclass(frozen=True, slots=True)
class Security:
    token: str = ""  # "" : none asked for
    cert: bytes = b""  # PEM; with key: TLS
    key: bytes = b""
    insecure: bool = False  # another address without TLS and token, on purpose

    def check(self, host: str) -> None:
        if bool(self.cert) != bool(self.key):
            raise SetupError("--grpc-tls-cert and --grpc-tls-key go together")
        if _loopback(host) or self.insecure:
            return
        if not (self.cert and self.token):
            raise SetupError(f"--grpc-host {host}: another address than loopback needs TLS (--grpc-tls-cert and "
                             "--grpc-tls-key) and a token (--grpc-token-file), or --grpc-insecure")


def read_pem(path: str | None, flag: str) -> bytes:
    """A PEM file's bytes (b"" for none), or SetupError naming the flag."""
    if not path:
        return b""
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20)
    except OSError as exc:
        raise SetupError(f"{flag} {path}: {exc.strerror or exc}") from None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Owner:
    """What the server needs of whoever owns the simulation: its thread's call queue, the
    hubs it feeds, how to read the world now (a new stream's first message), and the rules
    (`api`: an object with SingleApi's methods, some of which a mode may lack)."""

    def __init__(self, api: Any, calls: LoopCalls, *, capture: Callable[[], Any],
                 drawing: Callable[[], Any] | None = None, mode: str = "single") -> None:
        self.api = api
        self.calls = calls
        self.capture = capture  # on the owner's thread: a StateCapture, or a full Snapshot
        self.drawing = drawing  # any thread: (version, board dict) of the agents' drawings, or None
        self.mode = mode
        self.snapshots = SnapshotHub()
        self.game = GameHub()


class ApiServer:
    """`start()` binds and serves (StartupError-like SetupError or OSError when it cannot);
    `close()` stops within a second."""

    def __init__(self, owner: Owner, host: str, port: int, security: Security | None = None) -> None:
        self.owner = owner
        self.host = host
        self.requested_port = port
        self.security = security or Security()
        self.security.check(host)
        self.port = 0
        self.streams = 0
        self.stream_messages = 0  # written to streams, all told (benches and tests read it)
        self._aio: asyncio.AbstractEventLoop | None = None
        self._server: grpc.aio.Server | None = None
        self._thread: threading.Thread | None = None
        self._said: set[str] = set()
        self._health: health.aio.HealthServicer | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        started = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            aio = asyncio.new_event_loop()
            self._aio = aio
            asyncio.set_event_loop(aio)
            try:
                aio.run_until_complete(self._open())
            except BaseException as exc:  # noqa: BLE001 - handed to start()'s caller
                failure.append(exc)
                started.set()
                aio.close()
                return
            started.set()
            try:
                aio.run_forever()
            finally:
                aio.run_until_complete(aio.shutdown_asyncgens())
                aio.close()

        self._thread = threading.Thread(target=serve, name="grpc-api", daemon=True)
        self._thread.start()
        started.wait(30)
        if failure:
            self._thread.join(5)
            raise failure[0]

    async def _open(self) -> None:
        aio = asyncio.get_running_loop()
        self.owner.snapshots.bind(aio)
        self.owner.game.bind(aio)
        server = grpc.aio.server(
            interceptors=[_TokenCheck(self.security.token)] if self.security.token else [],
            options=[("grpc.max_receive_message_length", MAX_RECEIVE), ("grpc.max_send_message_length", MAX_SEND),
                     ("grpc.so_reuseport", 0)],
            maximum_concurrent_rpcs=MAX_CALLS)
        for service, methods in self._handlers().items():
            server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, methods),))
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        names = [s.full_name for s in pb.DESCRIPTOR.services_by_name.values()]
        for name in ["", *names]:
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection([*names, reflection.SERVICE_NAME, health.SERVICE_NAME], server)
        address = f"{self.host}:{self.requested_port}" if ":" not in self.host else \
            f"[{self.host}]:{self.requested_port}"
        sec = self.security
        if sec.cert:
            creds = grpc.ssl_server_credentials([(sec.key, sec.cert)])
            self.port = server.add_secure_port(address, creds)
        else:
            self.port = server.add_insecure_port(address)
        await server.start()
        self._server = server

    def close(self) -> None:
        aio, thread = self._aio, self._thread
        if aio is None or thread is None or aio.is_closed():
            return

        async def stop() -> None:
            if self._health is not None:
                await self._health.enter_graceful_shutdown()
            if self._server is not None:
                await self._server.stop(0.5)
            aio.stop()

        try:
            asyncio.run_coroutine_threadsafe(stop(), aio)
        except RuntimeError:
            return
        thread.join(5)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    # ------------------------------------------------------------------ plumbing
    async def on_owner(self, fn: Callable[[], T], timeout: float = CALL_TIMEOUT_S) -> T:
        """Run `fn` on the simulation's thread and await its answer."""
        aio = asyncio.get_running_loop()
        done: asyncio.Future[T] = aio.create_future()

        def settle(call: Any) -> None:
            def set_it() -> None:
                if done.done():
                    return
                if call.error is not None:
                    done.set_exception(call.error)
                else:
                    done.set_result(call.result)

            try:
                aio.call_soon_threadsafe(set_it)
            except RuntimeError:  # the server closed meanwhile
                pass

        item = self.owner.calls.call_soon(fn, settle)
        try:
            return await asyncio.wait_for(done, timeout)
        except TimeoutError:
            item.cancelled = True
            raise ApiError("UNAVAILABLE", f"the simulation did not answer within {timeout:g} s") from None
        except LoopCallTimeout as exc:
            raise ApiError("UNAVAILABLE", str(exc)) from None

    def _unary(self, name: str, request: Any, response: Any,
               body: Callable[[Any], Awaitable[Any]]) -> grpc.RpcMethodHandler:
        async def handle(req: Any, context: grpc.aio.ServicerContext) -> Any:
            try:
                if isinstance(req, Unreadable):
                    raise ApiError("INVALID_ARGUMENT", req.why)
                return await body(req)
            except ApiError as exc:
                await context.abort(getattr(grpc.StatusCode, exc.code), exc.message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one fault boundary per call
                self._internal(name, exc)
                await context.abort(grpc.StatusCode.INTERNAL, f"{name} failed: {type(exc).__name__}")

        return grpc.unary_unary_rpc_method_handler(handle, request_deserializer=_reader(request),
                                                   response_serializer=response.SerializeToString)

    def _stream(self, name: str, request: Any, body: Callable[[Any, Any], AsyncIterator[bytes]]) -> Any:
        async def handle(req: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
            if self.streams >= MAX_STREAMS:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"{MAX_STREAMS} streams are open: close one first")
            self.streams += 1
            try:
                if isinstance(req, Unreadable):
                    raise ApiError("INVALID_ARGUMENT", req.why)
                async for data in body(req, context):
                    yield data
                    self.stream_messages += 1
            except ApiError as exc:
                await context.abort(getattr(grpc.StatusCode, exc.code), exc.message)
            finally:
                self.streams -= 1

        return grpc.unary_stream_rpc_method_handler(handle, request_deserializer=_reader(request),
                                                    response_serializer=None)  # bytes made once for all

    def _internal(self, name: str, exc: Exception) -> None:
        key = f"{name}:{type(exc).__name__}"
        if key not in self._said:
            self._said.add(key)
            _log.error("API call %s failed: %s: %s (logged once per kind; the server goes on)", name,
                       type(exc).__name__, str(exc)[:200])

    # ------------------------------------------------------------------ the services
    def _handlers(self) -> dict[str, dict[str, grpc.RpcMethodHandler]]:
        """Every method of the proto's services: served, or UNIMPLEMENTED with why (a mode's)."""
        from sim_master.api import handlers

        table = handlers.table(self)
        out: dict[str, dict[str, grpc.RpcMethodHandler]] = {}
        for service in pb.DESCRIPTOR.services_by_name.values():
            methods: dict[str, grpc.RpcMethodHandler] = {}
            for method in service.methods:
                key = f"{service.name}.{method.name}"
                request = getattr(pb, method.input_type.name)
                served = table.get(key)
                if served is not None:
                    methods[method.name] = served
                elif method.server_streaming:
                    methods[method.name] = self._stream(key, request, _unimplemented_stream(key, self.owner.mode))
                else:
                    response = getattr(pb, method.output_type.name)
                    methods[method.name] = self._unary(key, request, response,
                                                       _unimplemented(key, self.owner.mode))
            out[service.full_name] = methods
        return out


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A request's bytes that are not its message: answered INVALID_ARGUMENT by the handler
    (grpc would answer INTERNAL and log a traceback)."""

    why: str


def _reader(request: Any) -> Callable[[bytes], Any]:
    def read(data: bytes) -> Any:
        try:
            return request.FromString(data)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError and whatever bytes make of it
            return Unreadable(f"not a {request.DESCRIPTOR.full_name} message ({len(data)} bytes)")
    return read


def _unimplemented(key: str, mode: str) -> Callable[[Any], Awaitable[Any]]:
    async def body(_: Any) -> Any:
        raise ApiError("UNIMPLEMENTED", f"{key} is not served by a {mode}-mode master")
    return body


def _unimplemented_stream(key: str, mode: str) -> Callable[[Any, Any], AsyncIterator[bytes]]:
    async def body(_: Any, __: Any) -> AsyncIterator[bytes]:
        raise ApiError("UNIMPLEMENTED", f"{key} is not served by a {mode}-mode master")
        yield b""  # an async generator
    return body


class _TokenCheck(grpc.aio.ServerInterceptor):
    """With a token set, a call without it ends UNAUTHENTICATED before any handler runs."""

    def __init__(self, token: str) -> None:
        self._want = f"Bearer {token}".encode()

    async def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
                                details: grpc.HandlerCallDetails) -> Any:
        if details.method.startswith(OPEN_TO_ALL):
            return await continuation(details)
        given = next((v for k, v in (details.invocation_metadata or ()) if k == "authorization"), "")
        if hmac.compare_digest(given.encode() if isinstance(given, str) else given, self._want):
            return await continuation(details)
        handler = await continuation(details)
        if handler is None:
            return None

        async def refuse(_: Any, context: grpc.aio.ServicerContext) -> Any:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "this server wants its token: metadata authorization: Bearer <token>")

        if handler.response_streaming:
            return grpc.unary_stream_rpc_method_handler(refuse, request_deserializer=handler.request_deserializer)
        return grpc.unary_unary_rpc_method_handler(refuse, request_deserializer=handler.request_deserializer)


def rate_period(max_rate_hz: float) -> float:
    """Seconds between two messages of a stream (0: as they come); INVALID_ARGUMENT for a rate
    that is not a finite number >= 0."""
    if not math.isfinite(max_rate_hz) or max_rate_hz < 0 or 0 < max_rate_hz < MIN_RATE_HZ:
        raise ApiError("INVALID_ARGUMENT", f"max_rate_hz: 0 (no limit) or at least {MIN_RATE_HZ:g}")
    return 1.0 / max_rate_hz if max_rate_hz > 0 else 0.0
