"""soccersim_api.client and examples/grpc_watch.py against a real server: the typed helpers,
the worlds iterator, a TLS server with a token on a non-loopback address, and the example
printing a goal it watched."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from soccersim_api.client import CallError, SoccerSimClient

ROOT = Path(__file__).resolve().parents[4]


def test_the_typed_client(running_server: Callable[..., Any]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server, \
            SoccerSimClient(server.api.server.address) as sim:
        assert sim.state().mode == "single"
        assert [e.state.name for e in sim.entities("^ball$")] == ["ball"]
        with pytest.raises(CallError) as refused:
            sim.entity("nobody")
        assert refused.value.code == grpc.StatusCode.NOT_FOUND and "nobody" in refused.value.details
        sim.set_play_mode("PlayOn")
        sim.move_ball((1.0, 2.0, 0.2), (0.0, 0.0, 0.0))
        worlds = sim.worlds()
        world = next(worlds)
        assert world.entities["ball"].pose.position.x == pytest.approx(1.0, abs=0.1)
        start = world.step
        for world in worlds:
            if world.step >= start + 5:
                break
        assert world.entities["ball"].pose.position.z < 0.2  # it fell: the deltas were merged in
        worlds.close()
        sim.pause()
        assert sim.step(3).cycle == sim.state().cycle


def _certificate(tmp: Path) -> tuple[Path, Path]:
    key, cert = tmp / "key.pem", tmp / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


def test_tls_and_a_token_off_loopback(running_server: Callable[..., Any], tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    with running_server(grpc_port=0, grpc_host="0.0.0.0", grpc_tls_cert=str(cert), grpc_tls_key=str(key),
                        grpc_token="t0ken") as server:
        port = server.api.server.port
        with SoccerSimClient(f"localhost:{port}", token="t0ken", root_certificates=cert.read_bytes()) as sim:
            assert sim.state().mode == "single"
        with SoccerSimClient(f"localhost:{port}", root_certificates=cert.read_bytes()) as anonymous:
            with pytest.raises(CallError) as refused:
                anonymous.state()
            assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED
        with SoccerSimClient(f"localhost:{port}", token="t0ken", timeout=3) as plain:  # no TLS: no answer
            with pytest.raises(CallError) as failed:
                plain.state()
            assert failed.value.code == grpc.StatusCode.UNAVAILABLE


def test_the_watch_example_prints_a_goal(running_server: Callable[..., Any]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        address = server.api.server.address
        watch = subprocess.Popen([sys.executable, str(ROOT / "examples" / "grpc_watch.py"), "--address", address],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
        try:
            assert watch.stdout is not None
            first = watch.stdout.readline()
            assert first.startswith("connected: single mode"), first
            with SoccerSimClient(address) as sim:
                sim.set_play_mode("PlayOn")
                sim.move_ball((14.0, 0.0, 0.042), (5.0, 0.0, 0.0))
            deadline = time.monotonic() + 30
            lines = []
            while time.monotonic() < deadline:
                line = watch.stdout.readline()
                lines.append(line)
                if line.startswith("GOAL"):
                    break
            assert lines[-1].startswith("GOAL left"), lines
        finally:
            watch.terminate()
            watch.wait(10)
