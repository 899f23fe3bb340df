"""Generated hostile input on the surfaces added beside the TCP ports (issue 42), while a good
agent plays: the RoboViz draw port (datagrams), the browser's WebSocket (frames), the
server's DDS topics and services (a ROS player's effector topics, the join, beam, play-mode
and move services), replay log files (damaged copies of a real log) and the gRPC core API
(every method of soccersim.v1 with hostile fields, and bytes that are no message).

    python tools/fuzz_surfaces.py --inputs 100000 --seed 1

sends that many inputs to each surface and prints one JSON object: inputs per surface,
internal errors the fault boundaries caught (each one is a bug: an input nobody foresaw),
exceptions that escaped (replay files), whether the server survived, and the good agent's
cycles during and after. `make test` runs a seeded sample of it (test_fuzz_sample.py).
The generators are our own grammar of each protocol with hostile values (fuzz_ports.ATOMS)."""
from __future__ import annotations

import argparse
import json
import os
import random
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fuzz_ports import ATOMS, message, watched_logs

HOSTILE_NUMBERS = [0.0, -0.0, 1.0, -1.0, 1e5, -1e5, 1e300, -1e300, float("inf"), float("-inf"), float("nan"),
                   5e-324, 1e-300, 15.0, -15.0, 10.0, 99.0, 2 ** 53, -(2 ** 63)]


# ---------------------------------------------------------------------- the draw port
def _number6(rng: random.Random) -> bytes:
    pick = rng.random()
    if pick < 0.6:
        return (b"%6f" % rng.uniform(-20, 20))[:6]
    if pick < 0.85:
        return rng.choice([b"1e400 ", b"nan   ", b"inf   ", b"-inf  ", b"1e5   ", b"999999", b"-99999", b"      ",
                           b"\x00\x00\x00\x00\x00\x00", b"0x10  ", b"1_0   ", b"\xff\xfe\x00abc"])
    return bytes(rng.getrandbits(8) for _ in range(6))


def _name(rng: random.Random) -> bytes:
    pick = rng.random()
    if pick < 0.7:
        return rng.choice([b"", b"7.L.path", b"a", b"set1", b"x" * 300, b"\xff\xfe", b"p1."]) + b"\x00"
    if pick < 0.9:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40))) + b"\x00"
    return b"no terminating nul"


def draw_datagram(rng: random.Random) -> bytes:
    """One datagram of RoboViz drawing commands, mostly well formed, with hostile fields."""
    if rng.random() < 0.05:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))
    out = b""
    for _ in range(rng.randrange(1, 12)):
        kind = rng.choice([(0, 0), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 0), (2, 1), (2, 2), (3, 0),
                           (rng.randrange(256), rng.randrange(256))])
        body = bytes(kind)
        if kind == (0, 0):
            body += _name(rng)
        elif kind == (1, 0):
            body += b"".join(_number6(rng) for _ in range(4)) + bytes(rng.getrandbits(8) for _ in range(3)) + _name(rng)
        elif kind == (1, 1):
            body += b"".join(_number6(rng) for _ in range(7)) + bytes(rng.getrandbits(8) for _ in range(3)) + _name(rng)
        elif kind in ((1, 2), (1, 3)):
            body += b"".join(_number6(rng) for _ in range(4)) + bytes(rng.getrandbits(8) for _ in range(3)) + _name(rng)
        elif kind == (1, 4):
            n = rng.choice([0, 1, 2, 3, 8, 255])
            body += bytes([n]) + bytes(rng.getrandbits(8) for _ in range(4))
            body += b"".join(_number6(rng) for _ in range(3 * rng.choice([n, max(0, n - 1), 1]))) + _name(rng)
        elif kind == (2, 0):
            body += b"".join(_number6(rng) for _ in range(3)) + bytes(rng.getrandbits(8) for _ in range(3)) + _name(rng)
        elif kind == (2, 1):
            body += bytes([rng.randrange(256)]) + bytes(rng.getrandbits(8) for _ in range(3)) + _name(rng)
        elif kind in ((2, 2), (3, 0)):
            body += bytes([rng.randrange(256)])
        if rng.random() < 0.05:
            body = body[:rng.randrange(len(body) + 1)]  # cut short
        out += body
    return out


# ---------------------------------------------------------------------- the browser
# "pause" is left out: a loopback page may legitimately hold the match (as killsim for monitors).
COMMANDS = ["play", "kickoff", "drop_ball", "free_kick", "play_mode", "move_ball", "move_robot", "step",
            "seek", "speed", "killsim", "", "__proto__", "constructor"]
FIELDS = ["side", "name", "x", "y", "unum", "yaw", "cycles", "time", "value", "cmd"]


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(HOSTILE_NUMBERS[:8] + [1e300, 10, -3, 2.5])
    if pick < 0.6:
        return rng.choice(ATOMS)
    if pick < 0.7:
        return rng.choice([None, True, False])
    if pick < 0.85 and depth < 4:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if depth < 4:
        return {rng.choice(FIELDS): _json_value(rng, depth + 1) for _ in range(rng.randrange(3))}
    return 0


def page_frame(rng: random.Random) -> str | bytes:
    """One WebSocket message a page might (or should never) send."""
    pick = rng.random()
    if pick < 0.7:
        command: dict[str, Any] = {"cmd": rng.choice(COMMANDS)}
        for _ in range(rng.randrange(4)):
            command[rng.choice(FIELDS)] = _json_value(rng)
        text = json.dumps(command, allow_nan=True)
        return text if rng.random() < 0.9 else text[:rng.randrange(len(text) + 1)]
    if pick < 0.8:
        depth = rng.choice([9, 50, 2000])
        return "[" * depth + "]" * depth
    if pick < 0.9:
        return message(rng).decode("utf-8", "replace")
    if pick < 0.97:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 300)))
    return "x" * rng.choice([4000, 5000, 70000])  # beyond a command's size: only this page goes


# ---------------------------------------------------------------------- DDS
def _float(rng: random.Random) -> float:
    return float(rng.choice(HOSTILE_NUMBERS)) if rng.random() < 0.5 else rng.uniform(-30, 30)


def _text(rng: random.Random) -> str:
    return rng.choice(ATOMS + ["Alpha", "Beta", "ball", "Alpha/p1", "x" * 5000, "a/b/c", "(say hi)", "é" * 40])


def dds_input(rng: random.Random, types: dict[str, Any]) -> tuple[str, Any]:
    """(what, message or request) for one of the player's topics or the server's services."""
    kind = rng.choice(["joint_command", "beam", "say", "synchronize", "init_agent", "beam_agent", "set_play_mode",
                       "move_entity"])
    if kind == "joint_command":
        m = types["JointCommand"]()
        m.mode = rng.choice([0, 1, 2, 255])
        n = rng.choice([0, 1, 3, 22, 200])
        m.names = [rng.choice(["he1", "lle3", "rae4", "te1", _text(rng)]) for _ in range(n)]
        for attr in ("velocities", "q", "dq", "kp", "kd", "tau"):
            setattr(m, attr, [_float(rng) for _ in range(rng.choice([n, 0, n + 1, max(0, n - 1)]))])
        m.synchronize = rng.random() < 0.5
        return kind, m
    if kind == "beam":
        return kind, types["Beam"](x=_float(rng), y=_float(rng), rotation=_float(rng))
    if kind == "say":
        return kind, types["Say"](message=_text(rng))
    if kind == "synchronize":
        return kind, types["Empty"]()
    if kind == "init_agent":
        return kind, types["InitAgent"].Request(team=_text(rng), unum=rng.choice([0, 1, 11, 12, 99, 255]),
                                                robot_model=rng.choice(["nao", "nao4", "T1", "", _text(rng)]),
                                                perception=rng.choice(["", "simspark", "rcsssmj", _text(rng)]))
    if kind == "beam_agent":
        return kind, types["BeamAgent"].Request(team=_text(rng), unum=rng.choice([0, 1, 99]), x=_float(rng),
                                                y=_float(rng), rotation=_float(rng))
    if kind == "set_play_mode":
        return kind, types["SetPlayMode"].Request(play_mode=rng.choice(["PlayOn", "KickOff_Left", "GameOver",
                                                                        _text(rng)]))
    req = types["MoveEntity"].Request(entity=rng.choice(["ball", "Good/p1", _text(rng)]), rotation=_float(rng))
    req.position.x, req.position.y, req.position.z = _float(rng), _float(rng), _float(rng)
    req.velocity.x = _float(rng)
    return kind, req


# ---------------------------------------------------------------------- the gRPC API
def grpc_request(rng: random.Random, message_type: Any, depth: int = 0) -> Any:
    """A request of `message_type` (a soccersim.v1 message class) with every field hostile or
    left out: numbers from HOSTILE_NUMBERS, texts from the agents' ATOMS, out-of-range counts."""
    msg = message_type()
    for f in message_type.DESCRIPTOR.fields:
        if rng.random() < 0.3:
            continue
        repeated = f.label == f.LABEL_REPEATED if hasattr(f, "label") else f.is_repeated
        for _ in range(rng.choice([1, 1, 2, 5]) if repeated else 1):
            if f.message_type is not None:
                if depth >= 3:
                    break
                sub = grpc_request(rng, message_type_of(f.message_type), depth + 1)
                if repeated:
                    getattr(msg, f.name).append(sub)
                else:
                    getattr(msg, f.name).CopyFrom(sub)
                continue
            value: Any
            if f.type == f.TYPE_DOUBLE:
                value = _float(rng)
            elif f.type == f.TYPE_BOOL:
                value = rng.random() < 0.5
            elif f.type in (f.TYPE_UINT32, f.TYPE_UINT64):
                value = rng.choice([0, 1, 3, 11, 99, 2 ** 31, 2 ** 32 - 1]) if f.type == f.TYPE_UINT32 else \
                    rng.choice([0, 1, 2 ** 63, 2 ** 64 - 1])
            elif f.type == f.TYPE_ENUM:
                value = rng.choice([0, 1, 2, 3, 77])
            else:
                value = _text(rng) if rng.random() < 0.8 else rng.choice(
                    ["PlayOn", "GameOver", "^(a+)+$", "model://nao0", "<sdf><model name='x'>", "(", "left"])
            if repeated:
                getattr(msg, f.name).append(value)
            else:
                setattr(msg, f.name, value)
    return msg


def message_type_of(descriptor: Any) -> Any:
    from soccersim_api.v1 import soccersim_pb2 as pb

    return getattr(pb, descriptor.name)


def _fuzz_grpc(server: Any, rng: random.Random, count: int, progress: bool) -> tuple[int, dict[str, int]]:
    """Every method, called with generated requests (5 % raw bytes that are no message);
    streams are read for one message and cancelled. Every answer must be a status the API
    says (never INTERNAL or UNKNOWN); the match is played on afterwards."""
    import grpc

    from soccersim_api.v1 import soccersim_pb2 as pb

    channel = grpc.insecure_channel(server.api.server.address)
    methods = [(s.full_name, m) for s in pb.DESCRIPTOR.services_by_name.values() for m in s.methods]
    codes: dict[str, int] = {}
    sent = 0
    try:
        for i in range(count):
            service, method = rng.choice(methods)
            path = f"/{service}/{method.name}"
            raw = rng.random() < 0.05
            request = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64))) if raw else \
                grpc_request(rng, message_type_of(method.input_type)).SerializeToString()
            code = "OK"
            try:
                if method.server_streaming:
                    call = channel.unary_stream(path, request_serializer=None, response_deserializer=None)(
                        request, timeout=5)
                    try:
                        next(call)
                    finally:
                        call.cancel()
                else:
                    channel.unary_unary(path, request_serializer=None, response_deserializer=None)(request, timeout=5)
            except grpc.RpcError as exc:
                code = exc.code().name
            except StopIteration:
                code = "OK"
            codes[code] = codes.get(code, 0) + 1
            sent += 1
            if progress and i % 1000 == 0:
                print(f"grpc {i}/{count}", file=sys.stderr, flush=True)
        # what a hostile operator changed is changed back, so the good agent plays on
        stub_sim = channel.unary_unary("/soccersim.v1.Simulation/Resume", request_serializer=None,
                                       response_deserializer=None)
        stub_sim(b"", timeout=10)
        channel.unary_unary("/soccersim.v1.Game/SetPlayMode", request_serializer=None, response_deserializer=None)(
            pb.SetPlayModeRequest(play_mode="PlayOn").SerializeToString(), timeout=10)
        if not server.config.sync:
            channel.unary_unary("/soccersim.v1.Simulation/SetSpeed", request_serializer=None,
                                response_deserializer=None)(
                pb.SetSpeedRequest(real_time_factor=1.0).SerializeToString(), timeout=10)
    finally:
        channel.close()
    return sent, codes


# ---------------------------------------------------------------------- replay files
def damaged(rng: random.Random, data: bytes) -> bytes:
    """A copy of a log with one kind of damage at a random place."""
    n = len(data)
    at = rng.randrange(8, n)
    pick = rng.random()
    if pick < 0.25:
        return data[:at]
    if pick < 0.5:
        span = rng.randrange(1, 64)
        return data[:at] + bytes(rng.getrandbits(8) for _ in range(span)) + data[at + span:]
    if pick < 0.65:
        return data[:at] + bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 500))) + data[at:]
    if pick < 0.8:
        return data[:at] + b"\x00" * rng.randrange(1, 4000) + data[at + 4000:]
    if pick < 0.9:
        flipped = bytearray(data)
        for _ in range(rng.randrange(1, 20)):
            flipped[rng.randrange(8, n)] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    cut = rng.randrange(8, n)
    return data[:8] + data[cut:]  # the middle of a log after its magic


# ---------------------------------------------------------------------- the run
def fuzz_surfaces(per_surface: int, seed: int, progress: bool = False,
                  surfaces: tuple[str, ...] = ("draw", "web", "dds", "replay", "grpc")) -> dict[str, Any]:
    """An in-process server (real time, ROS on, draw port and browser monitor open) with one
    good SimSpark agent playing; `per_surface` generated inputs on each surface."""
    from sim_bridge.clients import SimSparkAgent
    from sim_master.master.config import ServerConfig
    from sim_master.server.in_thread import serving

    rng = random.Random(seed)
    result: dict[str, Any] = {"seed": seed, "inputs": {}}
    t0 = time.monotonic()
    with watched_logs() as (errors, refusals):
        config = ServerConfig(sync=False, realtime=True, simspark_port=0, rcsssmj_port=None, simspark_monitor_port=None,
                              rcsssmj_monitor_port=None, service_port=None, web_port=0, draw_port=0, ros=True,
                              vision_noise=False, grpc_port=0)
        with serving(config) as server:
            good = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 1)
            good.join()
            stop = threading.Event()
            played = [0]

            def play() -> None:
                while not stop.is_set():
                    try:
                        good.act()
                        played[0] += 1
                    except (OSError, ConnectionError):
                        return

            player = threading.Thread(target=play, daemon=True)
            player.start()
            start_cycles = server.loop.stats.cycles
            if "draw" in surfaces:
                result["inputs"]["draw"] = _fuzz_draw(server, rng, per_surface, progress)
            if "web" in surfaces:
                result["inputs"]["web"] = _fuzz_web(server, rng, per_surface, progress)
            if "dds" in surfaces:
                result["inputs"]["dds"] = _fuzz_dds(server, rng, per_surface, progress)
            if "grpc" in surfaces:
                result["inputs"]["grpc"], result["grpc_codes"] = _fuzz_grpc(server, rng, per_surface, progress)
            if "replay" in surfaces:
                escaped, count = _fuzz_replay(rng, per_surface, progress)
                result["inputs"]["replay"] = count
                result["replay_escaped"] = escaped[:5]
                result["replay_escaped_count"] = len(escaped)
            result["cycles"] = server.loop.stats.cycles - start_cycles
            at_end, deadline = played[0], time.monotonic() + 10
            while played[0] < at_end + 10 and time.monotonic() < deadline and player.is_alive():
                time.sleep(0.02)
            result["good_cycles_after_fuzz"] = played[0] - at_end
            result["good_agent_cycles"] = played[0]
            stop.set()
            player.join(5)
            result["server_alive"] = not server.loop.stop_event.is_set()
            good.close()
    result.update(wall_s=round(time.monotonic() - t0, 1), refusals_logged=refusals.count,
                  internal_errors=len(errors.seen), internal_error_samples=errors.seen[:5])
    return result


def _fuzz_draw(server: Any, rng: random.Random, count: int, progress: bool) -> int:
    """Every datagram through the parser and a board here (the server's budgets drop most of
    a flood unread), and sent to the server's port from 16 senders."""
    from sim_bridge.roboviz_draw import DrawingBoard, DrawProtocolError, parse_datagram

    board = DrawingBoard()
    senders = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(16)]
    port = server.drawing.port.port
    for i in range(count):
        data = draw_datagram(rng)
        try:
            commands = parse_datagram(data)
        except DrawProtocolError as exc:
            commands = exc.args[1] if len(exc.args) > 1 else []
        for command in commands:
            board.apply(command)
        try:
            senders[i % 16].sendto(data, ("127.0.0.1", port))
        except OSError:
            pass
        if i % 64 == 63:
            time.sleep(0.001)  # a pace the port reads (a flood is the budgets' test)
        if progress and i % 20000 == 0:
            print(f"fuzz draw: {i}/{count}", file=sys.stderr)
    for s in senders:
        s.close()
    board.to_dict()
    return count


def _fuzz_web(server: Any, rng: random.Random, count: int, progress: bool) -> int:
    from websockets.sync.client import connect

    url = f"ws://127.0.0.1:{server.web_monitor.port}/ws"
    pages: list[Any] = []
    for i in range(count):
        if len(pages) < 4 or rng.random() < 0.002:
            try:
                pages.append(connect(url, open_timeout=5))
            except Exception:  # noqa: BLE001 - refused beyond the cap
                pass
        if not pages:
            continue
        page = rng.choice(pages)
        try:
            page.send(page_frame(rng))
            while True:
                page.recv(timeout=0)
        except TimeoutError:
            pass
        except Exception:  # noqa: BLE001 - the server closed this page (as it should for an oversized one)
            pages.remove(page)
            try:
                page.close()
            except Exception:  # noqa: BLE001
                pass
        if progress and i % 20000 == 0:
            print(f"fuzz web: {i}/{count}", file=sys.stderr)
    for page in pages:
        page.close()
    return count


def _fuzz_dds(server: Any, rng: random.Random, count: int, progress: bool) -> int:
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from std_msgs.msg import Empty

    from sim_msgs.msg import Beam, JointCommand, Say
    from sim_msgs.srv import BeamAgent, InitAgent, MoveEntity, SetPlayMode
    from soccer_referee.ros.referee_node import JOIN_QOS

    types = {"JointCommand": JointCommand, "Beam": Beam, "Say": Say, "Empty": Empty, "InitAgent": InitAgent,
             "BeamAgent": BeamAgent, "SetPlayMode": SetPlayMode, "MoveEntity": MoveEntity}
    context = server.ros_context
    node = Node("fuzz_surfaces", context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        joiner = node.create_client(InitAgent, "/soccer_referee/init_agent")
        assert joiner.wait_for_service(timeout_sec=20), "no init_agent"
        joined = joiner.call_async(InitAgent.Request(team="Fuzz", unum=1, robot_model="nao"))
        executor.spin_until_future_complete(joined, timeout_sec=20)
        ns = joined.result().player_namespace if joined.result() is not None else "/Fuzz/p1"
        reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        pubs = {"joint_command": node.create_publisher(JointCommand, f"{ns}/effectors/joint_command", reliable),
                "beam": node.create_publisher(Beam, f"{ns}/effectors/beam", reliable),
                "say": node.create_publisher(Say, f"{ns}/effectors/say", reliable),
                "synchronize": node.create_publisher(Empty, f"{ns}/effectors/synchronize", reliable)}
        services = {"init_agent": ("/soccer_referee/init_agent", InitAgent),
                    "beam_agent": ("/soccer_referee/beam_agent", BeamAgent),
                    "set_play_mode": ("/soccer_referee/set_play_mode", SetPlayMode),
                    "move_entity": ("/soccer_referee/move_entity", MoveEntity)}
        clients = {k: node.create_client(t, name, qos_profile=JOIN_QOS) for k, (name, t) in services.items()}
        pending: list[Any] = []
        for i in range(count):
            what, msg = dds_input(rng, types)
            if what in pubs:
                pubs[what].publish(msg)
            else:
                pending.append(clients[what].call_async(msg))
            if i % 50 == 49 or len(pending) > 40:
                executor.spin_once(timeout_sec=0.0)
                deadline = time.monotonic() + 30
                while pending and time.monotonic() < deadline:
                    executor.spin_once(timeout_sec=0.01)
                    pending = [f for f in pending if not f.done()]
                if pending:
                    raise RuntimeError(f"{len(pending)} service calls unanswered after 30 s")
            if progress and i % 20000 == 0:
                print(f"fuzz dds: {i}/{count}", file=sys.stderr)
    finally:
        node.destroy_node()
        executor.shutdown()
    return count


def _fuzz_replay(rng: random.Random, count: int, progress: bool) -> tuple[list[str], int]:
    """Damaged copies of a small real log, each read whole by the replay's reader: no
    exception may escape it."""
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_master.ros.convert import snapshot_to_msg, stamp
    from sim_master.store.mcap_log import ReplayLogReader, ReplayLogWriter

    work = Path(tempfile.mkdtemp(prefix="fuzz_replay."))
    good = work / "good.mcap"
    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("left_1", "nao", -2.0, 0.0, 0.0)
    log = ReplayLogWriter(str(good), serialize_message, flush_every=10)
    for _ in range(60):
        engine.step()
        snap = engine.snapshot() if log.wants_keyframe() else engine.delta()
        log.write_cycle(engine.cycle, engine.time, snapshot_to_msg(snap), None, [], Clock(clock=stamp(engine.time)))
    log.close()
    data = good.read_bytes()
    escaped: list[str] = []
    path = work / "damaged.mcap"
    for i in range(count):
        path.write_bytes(damaged(rng, data))
        try:
            reader = ReplayLogReader(str(path))
            for _ in reader.cycles():
                pass
        except ValueError:  # LogError (not an MCAP file any more): one line for the user, as designed
            pass
        except Exception as exc:  # noqa: BLE001 - what the fuzz is for
            escaped.append(f"{type(exc).__name__}: {str(exc)[:120]}")
        if progress and i % 5000 == 0:
            print(f"fuzz replay: {i}/{count}", file=sys.stderr)
    for f in work.iterdir():
        f.unlink()
    work.rmdir()
    return escaped, count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs per surface")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--surfaces", nargs="*", default=["draw", "web", "dds", "replay", "grpc"],
                        choices=["draw", "web", "dds", "replay", "grpc"])
    args = parser.parse_args()
    if args.inputs < 1:
        parser.error("--inputs must be at least 1")
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    result = fuzz_surfaces(args.inputs, args.seed, progress=True, surfaces=tuple(args.surfaces))
    print(json.dumps(result))
    ok = result["server_alive"] and not result["internal_errors"] and not result.get("replay_escaped_count")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
