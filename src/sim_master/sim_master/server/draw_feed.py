"""Agents' debug drawings (RoboViz's UDP drawing protocol, sim_bridge/roboviz_draw.py) as a
loop adapter: datagrams read between cycles into one DrawingBoard, which the browser monitor
draws. A malformed datagram loses only itself (the commands before the fault are kept), and
is said once per sender; a flood is bounded by the board and by the datagrams read per poll."""
from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from sim_bridge.roboviz_draw import DrawingBoard, DrawProtocolError, parse_datagram
from sim_master.master.adapters import LoopAdapter

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

MAX_DATAGRAMS_PER_POLL = 4000
MAX_DATAGRAM = 65535


class DrawingPort:
    """The UDP socket agents draw to."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            self.sock.bind((host, port))
        except OSError:
            self.sock.close()
            raise
        self.sock.setblocking(False)
        self.port: int = self.sock.getsockname()[1]

    def receive(self) -> list[tuple[bytes, tuple[str, int]]]:
        out = []
        for _ in range(MAX_DATAGRAMS_PER_POLL):
            try:
                data, peer = self.sock.recvfrom(MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:  # e.g. an ICMP error queued on the socket: nothing to read
                break
            out.append((data, peer))
        return out

    def close(self) -> None:
        self.sock.close()


class DrawingFeed(LoopAdapter):
    name = "drawing port"

    def __init__(self, port: DrawingPort) -> None:
        self.port = port
        self.board = DrawingBoard()
        self._warned: set[str] = set()

    def poll(self, loop: SimulationLoop) -> None:
        for data, peer in self.port.receive():
            try:
                commands = parse_datagram(data)
            except DrawProtocolError as exc:
                commands = exc.args[1] if len(exc.args) > 1 else []
                if peer[0] not in self._warned and len(self._warned) < 64:
                    self._warned.add(peer[0])
                    loop.log.warning("drawing port: %s:%d sent a datagram that is not RoboViz's drawing "
                                     "protocol (%s); its commands from there on are dropped (said once "
                                     "per sender)", peer[0], peer[1], exc.args[0])
            for command in commands:
                self.board.apply(command)

    def close(self) -> None:
        self.port.close()
