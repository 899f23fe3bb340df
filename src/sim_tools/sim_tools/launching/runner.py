"""Starts the processes of a LaunchDescription and stops every one of them on exit.

Each node runs in its own session so that its whole process group can be signalled
(a node may start children of its own). Stop order per process: SIGINT, SIGTERM after a
grace period, SIGKILL after a second one — rclpy nodes quit on SIGINT, scripts started in
the background ignore it, and nothing may outlive the runner.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Final

from ament_index_python.packages import PackageNotFoundError, get_package_prefix

from sim_tools.launching.description import LaunchDescription, NodeAction

GRACE_S: Final = 3.0


class LaunchError(RuntimeError):
    """A node's executable cannot be found."""


@dataclass(slots=True)
class Running:
    action: NodeAction
    process: subprocess.Popen[bytes]
    command: list[str]
    ended_at: float | None = None  # when a respawning node was seen ended


def node_command(action: NodeAction) -> list[str]:
    """The command line `ros2 run` would build for a <node>; an <executable>'s own."""
    if action.command:
        exe = shutil.which(action.command[0]) or action.command[0]
        if not os.access(exe, os.X_OK):
            raise LaunchError(f"executable {action.command[0]!r} not found")
        return [exe, *action.command[1:]]
    try:
        prefix = get_package_prefix(action.package)
    except PackageNotFoundError as exc:
        raise LaunchError(f"package {action.package!r} not found (source install/setup.bash)") from exc
    exe = os.path.join(prefix, "lib", action.package, action.executable)
    if not os.access(exe, os.X_OK):
        raise LaunchError(f"executable {action.executable!r} not found in package {action.package!r}")
    cmd = [exe, *action.arguments, "--ros-args"]
    if action.name:
        cmd += ["-r", f"__node:={action.name}"]
    if action.namespace:
        cmd += ["-r", f"__ns:={action.namespace}"]
    for params_file in action.params_files:
        cmd += ["--params-file", params_file]
    for key, value in action.parameters.items():
        cmd += ["-p", f"{key}:={value if value != '' else repr('')}"]  # rcl reads '' as the empty string
    for src, dst in action.remappings:
        cmd += ["-r", f"{src}:={dst}"]
    return cmd


class LaunchRunner:
    """Runs nodes until one marked on_exit=shutdown ends, all end, a signal, or a timeout."""

    def __init__(self, description: LaunchDescription, *, log=print) -> None:
        self._description = description
        self._log = log
        self._running: list[Running] = []
        self._stop_requested = False
        self._started = 0

    def run(self, duration: float | None = None) -> int:
        commands = [(a, node_command(a)) for a in self._description.nodes]
        old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        exit_code = 0
        try:
            for action, cmd in commands:
                self._running.append(Running(action, self._start(action, cmd), cmd))
            deadline = None if duration is None else time.monotonic() + duration
            while not self._stop_requested:
                if deadline is not None and time.monotonic() >= deadline:
                    self._log("[launch] duration reached")
                    break
                self._respawn()
                alive = [r for r in self._running if r.process.poll() is None]
                ended = [r for r in self._running if r.process.poll() is not None]
                trigger = next((r for r in ended if r.action.shutdown_on_exit), None)
                if trigger is not None:
                    code = trigger.process.returncode
                    self._log(f"[launch] {trigger.action.label} exited ({code}): shutting down")
                    exit_code = code if code and code > 0 else 0
                    break
                if not alive and not any(r.action.respawn for r in self._running):
                    break
                time.sleep(0.05)
        finally:
            self.stop_all()
            for s, handler in old.items():
                signal.signal(s, handler)
        failed = [r for r in self._running
                  if r.process.returncode not in (0, -signal.SIGINT, -signal.SIGTERM)
                  and not r.action.shutdown_on_exit]
        for r in failed:
            self._log(f"[launch] {r.action.label} ended with {r.process.returncode}")
        return exit_code

    def _start(self, action: NodeAction, cmd: list[str]) -> subprocess.Popen[bytes]:
        """Start one process; its output lines go out prefixed `[<name>-<n>]`, as ros2 launch."""
        env = {**os.environ, **self._description.env, **action.env, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        self._started += 1
        prefix = f"[{action.label}-{self._started}] ".encode()
        threading.Thread(target=_copy_lines, args=(proc, prefix), name=f"output-{proc.pid}", daemon=True).start()
        self._log(f"[launch] started {action.label} (pid {proc.pid})")
        return proc

    def _respawn(self) -> None:
        """respawn="true": a node that ended is started again after its respawn_delay."""
        now = time.monotonic()
        for r in self._running:
            if not r.action.respawn or r.process.poll() is None:
                continue
            if r.ended_at is None:
                r.ended_at = now
                self._log(f"[launch] {r.action.label} exited ({r.process.returncode}): respawning")
            if now - r.ended_at >= r.action.respawn_delay:
                r.process, r.ended_at = self._start(r.action, r.command), None

    def stop_all(self) -> None:
        for sig, wait in ((signal.SIGINT, GRACE_S), (signal.SIGTERM, GRACE_S), (signal.SIGKILL, 5.0)):
            alive = [r for r in self._running if r.process.poll() is None]
            for r in alive:
                _signal_group(r.process, sig)
            deadline = time.monotonic() + wait
            while alive and time.monotonic() < deadline:
                alive = [r for r in alive if r.process.poll() is None]
                time.sleep(0.02)
        # Children of the nodes (same process groups) must not survive either.
        for r in self._running:
            _signal_group(r.process, signal.SIGKILL)

    def request_stop(self) -> None:
        """Stop every node and return from run() (as a signal does)."""
        self._stop_requested = True

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._stop_requested = True


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def find_launch_file(package: str, name: str) -> str:
    """FILE in PKG's share directory (searched below it, as `ros2 launch PKG FILE` does)."""
    from ament_index_python.packages import get_package_share_directory

    try:
        share = get_package_share_directory(package)
    except (PackageNotFoundError, LookupError, ValueError) as exc:
        raise LaunchError(f"package {package!r} not found (source install/setup.bash)") from exc
    for root, _dirs, files in os.walk(share, followlinks=True):
        if name in files:
            return os.path.join(root, name)
    raise LaunchError(f"no launch file {name!r} in package {package!r} ({share})")


def show_args(path: str) -> int:
    """`--show-args`: the file's arguments with their descriptions and defaults, as ros2 launch."""
    from sim_tools.launching.xml_loader import declared_arguments

    arguments = declared_arguments(path)
    print("Arguments (pass arguments as '<name>:=<value>'):\n" if arguments else "No arguments.")
    for name, default, text in arguments:
        print(f"    '{name}':\n        {text or 'no description given'}")
        print(f"        (default: '{default}')\n" if default is not None else "        (required)\n")
    return 0


def main_run(path: str, args: dict[str, str], duration: float | None) -> int:
    from sim_tools.launching.xml_loader import load_launch_file

    description = load_launch_file(path, args)
    return LaunchRunner(description, log=lambda m: print(m, file=sys.stderr, flush=True)).run(duration)


def _copy_lines(proc: subprocess.Popen[bytes], prefix: bytes) -> None:
    """A child's output to ours, line by line with its prefix, until it closes."""
    assert proc.stdout is not None
    out = sys.stdout.buffer
    for line in proc.stdout:
        try:
            out.write(prefix + line)
            out.flush()
        except (OSError, ValueError):  # our stdout is gone: keep draining so the child never blocks
            continue
