"""Record how a K1 that never moves a joint falls, on rcssservermj 0.2.1 or on our server.

Why: issue 29 compared one run of each server at frame 50 (0.279 m on rcssservermj, 0.542 on
ours), and the real server does not repeat itself. One line per run is written (the torso
height of each perception, as the wire gives it) so a test can compare ours with what decides
the reference's runs, not with one draw of it.

What decides a run on rcssservermj: a joining robot's actuators are added by recompiling the
MuJoCo model, and their controls (`MjData.ctrl`) start as whatever the freed memory held, not 0.
An agent that never commands leaves them so. If any is huge (> 1e10) MuJoCo refuses them all and
steps with every control 0, which is what our server does; otherwise the leftovers act (seen: the
right knee pulled to 0.73-1.86 rad or to -0.35), and the K1 tips at another frame. The
recorder therefore watches rcssservermj's controls read-only (a wrapper around its step that
copies `ctrl` before the first step with the robot, never writes) and tags each run `zero` or
`leftover <actuator>=<value> ...`.

    python tools/fidelity/record_limp_k1.py --server rcssservermj --runs 8 --out k1.txt
    python tools/fidelity/record_limp_k1.py --server soccersim --runs 2
"""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

from sim_bridge.clients import RcsssmjAgent

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from bench_sync import free_port, rcsssmj_venv  # the reference server's own venv

# Run inside rcssservermj's venv: its server, with its step wrapped to copy (never change) the
# controls MuJoCo will see on the first step after a robot joined. Argument 1: where to write.
WATCH_CONTROLS = """
import json, sys
from rcsssmj.sim import simulation
out, step = sys.argv.pop(1), simulation.BaseSimulation.step
def watched(self, commands):
    m, d = self._mj_model, self._mj_data
    if m.nu and not getattr(self, "_watched", False):
        self._watched = True
        names = [m.actuator(i).name for i in range(m.nu)]
        with open(out, "w") as f:
            json.dump({n: float(v) for n, v in zip(names, d.ctrl) if v != 0.0}, f)
    step(self, commands)
simulation.BaseSimulation.step = watched
from rcsssmj.__main__ import soccer_sim
sys.argv[0] = "rcssservermj"
sys.exit(soccer_sim())
"""
K1_MOTORS = ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3", "rae4", "lle1", "lle2", "lle3",
             "lle4", "lle5", "lle6", "rle1", "rle2", "rle3", "rle4", "rle5", "rle6")
# --command-zero: every motor told, every cycle, what its robot file sets it to (target 0, speed
# 0, kp 1, kd 1, torque 0): on a server that starts its controls at 0, the same robot as one
# never commanded. rcssservermj's leftovers still act until the first command lands (a cycle).
FILE_DEFAULTS = {name: (0.0, 0.0, 1.0, 1.0, 0.0) for name in K1_MOTORS}
HUGE = 1e10  # MuJoCo's mjMAXVAL: a control beyond it makes mj_step zero them all (mjWARN_BADCTRL)

TORSO_Z = re.compile(rb"\(pos \(n torso_pos\) \(p [-0-9.e]+ [-0-9.e]+ ([-0-9.e]+)\)\)")


def start_soccersim(port: int) -> subprocess.Popen[bytes]:
    """Our server as its users start it: fifa field and rules, sync, no ROS."""
    ports = [str(free_port()) for _ in range(3)]
    server = subprocess.Popen(["soccersim", "server", "--world", "fifa_field", "--rules", "fifa", "--sync", "--no-ros",
                               "--rcsssmj-port", str(port), "--rcsssmj-monitor-port", ports[0],
                               "--simspark-port", ports[1], "--simspark-monitor-port", ports[2],
                               "--service-port", "-1", "--web-port", "-1", "--draw-port", "-1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_port(server, port)
    return server


def start_watched_rcssservermj(port: int, controls_file: str) -> subprocess.Popen[bytes]:
    """rcssservermj 0.2.1, lock-step, fifa rules, its first controls with a robot copied out."""
    python = os.path.join(rcsssmj_venv(), "bin", "python")
    env = {k: v for k, v in os.environ.items() if k not in ("_ROS_WHEELS_BOOTSTRAP_COMPLETE", "LD_LIBRARY_PATH",
                                                             "PYTHONPATH")}
    workdir = tempfile.mkdtemp(prefix="rcsssmj-")  # it writes console.log there; its output beside
    with open(os.path.join(workdir, "output.log"), "wb") as output:
        server = subprocess.Popen([python, "-c", WATCH_CONTROLS, controls_file, "--no-render", "--no-realtime",
                                   "--sync", "--rules", "fifa", "--aport", str(port), "--mport", str(free_port())],
                                  cwd=workdir, env=env, stdout=output, stderr=subprocess.STDOUT)
    wait_for_port(server, port)
    return server


def wait_for_port(server: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"the server did not open port {port}")


def controls_tag(controls: dict[str, float]) -> str:
    """`zero` when MuJoCo steps with every control 0, else the leftovers that act."""
    if not controls or any(abs(v) > HUGE for v in controls.values()):
        return "zero"
    return "leftover " + " ".join(f"{name.split('-')[-1]}={value:.6g}" for name, value in sorted(controls.items()))


def record_run(server_name: str, frames: int, join_after: float, command_zero: bool) -> tuple[str, list[str]]:
    """(controls tag, the torso z of `frames` perceptions) of a K1 (left #2) that only sends (syn),
    joined `join_after` seconds after the server opened its port."""
    port = free_port()
    controls_file = tempfile.mktemp(prefix="rcsssmj-controls-", suffix=".json")
    server = start_watched_rcssservermj(port, controls_file) if server_name == "rcssservermj" \
        else start_soccersim(port)
    try:
        # rcssservermj 0.2.1 ends its loop when a robot joins before its first step (its audio
        # engine has no emitters yet: a shape error in a_forward); its loop runs free until a
        # robot joins, and what the robot's controls start with varies with when.
        time.sleep(join_after)
        agent = RcsssmjAgent("127.0.0.1", port, "Alpha", 2, model="K1", timeout=30)
        agent.join()
        heights = []
        for _ in range(frames):
            found = TORSO_Z.search(agent.act(FILE_DEFAULTS if command_zero else None))
            if found is None:
                raise RuntimeError("a perception without the torso position")
            heights.append(found.group(1).decode())
        agent.close()
        if command_zero:
            return "commanded", heights
        if server_name != "rcssservermj":
            return "zero", heights  # ours: a robot's controls start at 0
        with open(controls_file) as f:
            return controls_tag(json.load(f)), heights
    finally:
        server.kill()
        server.wait()
        if os.path.exists(controls_file):
            os.unlink(controls_file)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("rcssservermj", "soccersim"), default="rcssservermj")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--frames", type=int, default=400)
    parser.add_argument("--out", default="-")
    parser.add_argument("--command-zero", action="store_true",
                        help="send every motor its file's defaults each cycle instead of nothing")
    args = parser.parse_args()
    sends = "its file's defaults to every motor" if args.command_zero else "only (syn)"
    lines = [f"# torso z (m) of a limp K1 (init K1 Alpha 2, {sends}) per perception, {args.frames} frames,",
             f"# {args.server}, sync, fifa rules; tools/fidelity/record_limp_k1.py. Two lines per run:",
             "# the controls MuJoCo stepped with (zero, or the leftovers that acted), then the heights."]
    for run in range(args.runs):
        tag, heights = record_run(args.server, args.frames, join_after=1.0 + 0.37 * (run % 16),
                                  command_zero=args.command_zero)
        print(f"run {run + 1}/{args.runs}: frame 50 at {heights[50]} m, last {heights[-1]} m, controls {tag}",
              file=sys.stderr)
        lines += [f"controls {tag}", " ".join(heights)]
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
