"""The text service port as a loop adapter: its requests are answered between cycles, on the
loop's thread, so handlers touch engine and referee safely."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sim_bridge.service_port import ServicePort
from sim_master.master.adapters import LoopAdapter

if TYPE_CHECKING:
    from sim_master.master.adapters import OperatedLoop


class ServicePortFeed(LoopAdapter):
    name = "service port"

    def __init__(self, port: ServicePort) -> None:
        self.port = port

    def poll(self, loop: OperatedLoop) -> None:
        self.port.poll(0.0)

    def close(self) -> None:
        self.port.close()
