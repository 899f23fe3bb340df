"""Launch XML is read as ros2 launch reads it: args, includes, namespaces, remaps, params."""
from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from sim_tools.launching.runner import node_command
from sim_tools.launching.xml_loader import LaunchFileError, load_launch_file


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_args_include_group_namespace_and_remaps(tmp_path: Path) -> None:
    write(tmp_path / "team.launch.xml", """<launch>
      <arg name="team" default="Nobody"/>
      <node pkg="sim_master" exec="soccersim" name="player" namespace="$(var team)"
            args="version">
        <param name="team" value="$(var team)"/>
        <remap from="percept" to="/$(var team)/p1/percept"/>
      </node>
    </launch>""")
    main = write(tmp_path / "main.launch.xml", """<launch>
      <arg name="left" default="Alpha"/>
      <arg name="with_right" default="false"/>
      <node pkg="sim_master" exec="soccersim" name="server" on_exit="shutdown" args="version"/>
      <group>
        <push-ros-namespace namespace="teams"/>
        <include file="$(dirname)/team.launch.xml"><arg name="team" value="$(var left)"/></include>
      </group>
      <include file="$(dirname)/team.launch.xml" if="$(var with_right)">
        <arg name="team" value="Beta"/>
      </include>
    </launch>""")
    desc = load_launch_file(main, {"left": "Lions"})
    assert [n.label for n in desc.nodes] == ["server", "player"]
    server, player = desc.nodes
    assert server.shutdown_on_exit and not player.shutdown_on_exit
    assert player.namespace == "/teams/Lions"
    assert player.parameters == {"team": "Lions"}
    assert player.remappings == [("percept", "/Lions/p1/percept")]
    cmd = node_command(player)
    assert cmd[0].endswith("/lib/sim_master/soccersim")
    assert cmd[1:] == ["version", "--ros-args", "-r", "__node:=player", "-r", "__ns:=/teams/Lions",
                       "-p", "team:=Lions", "-r", "percept:=/Lions/p1/percept"]
    both = load_launch_file(main, {"with_right": "true"})
    assert [n.namespace for n in both.nodes] == ["", "/teams/Alpha", "/Beta"]


@pytest.mark.parametrize("body, message", [
    ("<node pkg='sim_master' exec='soccersim'><bogus/></node>", "bad.launch.xml:3: unsupported element <bogus>"),
    ("<group ns='/x'><node pkg='a' exec='b'/></group>", "bad.launch.xml:3: <group> has no attribute 'ns'"),
    ("<node pkg='sim_master' exec='soccersim' respwan='true'/>", ":3: <node> has no attribute 'respwan'"),
    ("<node pkg='a' exec='b'><param name='x' valeu='1'/></node>", "<param> has no attribute 'valeu'"),
    ("<node pkg='a' exec='b'><param from='/nope/params.yaml'/></node>", "params file '/nope/params.yaml' not found"),
    ("<node pkg='a' exec='b' respawn='true' respawn_delay='soon'/>", "respawn_delay 'soon' is not a number"),
    ("<timer period='1'/>", "unsupported element <timer>"),
    ("<node pkg='sim_master' exec='soccersim' name='$(var nope)'/>", "bad.launch.xml:3: launch argument 'nope' is not"),
    ("<let name='x' value='$(bogus 1)'/>", "bad.launch.xml:3: unsupported substitution"),
    ("<arg name='required'/>", "argument 'required' needs a value"),
])
def test_unsupported_or_broken_files_fail_with_the_reason(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path / "bad.launch.xml", f"<?xml version='1.0'?>\n<launch>\n  {body}\n</launch>")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_launch_file(path)


def test_not_a_launch_file(tmp_path: Path) -> None:
    with pytest.raises(LaunchFileError, match="expected <launch>"):
        load_launch_file(write(tmp_path / "x.xml", "<sdf/>"))


def test_params_files_set_env_and_respawn(tmp_path: Path) -> None:
    params = write(tmp_path / "server.yaml", "soccersim:\n  ros__parameters:\n    rules: fifa\n")
    path = write(tmp_path / "ok.launch.xml", f"""<launch>
  <set_env name="SOCCERSIM_TEST" value="1"/>
  <node pkg="sim_master" exec="soccersim" args="version" respawn="true" respawn_delay="0.2">
    <param from="{params}"/>
  </node>
</launch>""")
    desc = load_launch_file(path)
    (node,) = desc.nodes
    assert desc.env == {"SOCCERSIM_TEST": "1"} and node.respawn and node.respawn_delay == 0.2
    assert node_command(node)[1:] == ["version", "--ros-args", "--params-file", params]


def test_a_respawning_node_is_started_again(tmp_path: Path) -> None:
    from sim_tools.launching.runner import LaunchRunner

    path = write(tmp_path / "respawn.launch.xml", """<launch>
  <node pkg="sim_master" exec="soccersim" args="version" respawn="true" respawn_delay="0.1"/>
</launch>""")
    lines: list[str] = []

    def log(line: str) -> None:  # the runner stops at the second start: as soon as it happens, even under load
        lines.append(line)
        if sum(seen.startswith("[launch] started soccersim") for seen in lines) >= 2:
            runner.request_stop()

    runner = LaunchRunner(load_launch_file(path), log=log)
    runner.run(duration=120.0)
    assert sum(line.startswith("[launch] started soccersim") for line in lines) >= 2, lines
    assert any("respawning" in line for line in lines)


@pytest.mark.parametrize("text, expected", [
    ("$(eval '$(var speed) * (3 + 1)')", "8"),
    ("$(eval 'math.floor(2.7)')", "2"),
    ("$(not $(var on))", "false"),
    ("$(equals $(var team) Lions)", "true"),
    ("$(notequals $(var team) Lions)", "false"),
    ("$(and true $(var on))", "true"),
    ("$(or false false)", "false"),
    ("$(if $(var on) yes no)", "yes"),
    ("$(command echo hi there)", "hi there"),
    ("$(filename)", "f.launch.xml"),
    ("$(dirname)", "/d"),
])
def test_substitutions(text: str, expected: str) -> None:
    from sim_tools.launching.substitutions import substitute

    args = {"speed": "2", "team": "Lions", "on": "true"}
    assert substitute(text, args, this_dir="/d", this_file="/d/f.launch.xml") == expected


def test_substitutions_that_find_things() -> None:
    from sim_tools.launching.substitutions import SubstitutionError, substitute

    assert substitute("$(anon player)", {}).startswith("player_") and substitute("$(anon p)", {}) != "p"
    assert Path(substitute("$(find-exec python3)", {})).name.startswith("python3")
    assert Path(substitute("$(find-pkg-prefix sim_master)", {}), "lib", "sim_master", "soccersim").exists()
    assert Path(substitute("$(launch_log_dir)", {})).is_dir()
    for bad, message in (("$(bogus x)", "unsupported substitution $(bogus)"), ("$(not maybe)", "expects true or false"),
                         ("$(eval '1/0')", "ZeroDivisionError"), ("$(find-exec no-such-tool-x)", "not found on PATH"),
                         ("$(equals a)", "needs two values"), ("$(var x", "unclosed substitution")):
        with pytest.raises(SubstitutionError, match=re.escape(message)):
            substitute(bad, {})


def test_launch_command_line_forms(tmp_path: Path) -> None:
    exe = shutil.which("soccersim")
    assert exe
    shown = subprocess.run([exe, "launch", "sim_master", "match.launch.xml", "--show-args"], capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0 and "'left':" in shown.stdout and "(default: 'Alpha')" in shown.stdout
    typo = write(
        tmp_path / "typo.launch.xml", "<launch>\n  <node pkg='sim_master' exec='soccersim' respwan='1'/>\n</launch>"
    )
    bad = subprocess.run([exe, "launch", typo], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        f"soccersim launch: {typo}:2: <node> has no attribute 'respwan' (it takes args, exec, if, name, namespace, "
        "on_exit, output, pkg, respawn, respawn_delay, unless)"]
    ture = write(tmp_path / "ture.launch.xml",
                 "<launch>\n  <node pkg='sim_master' exec='soccersim' respawn='ture'/>\n</launch>")
    refused = subprocess.run([exe, "launch", ture], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "respawn='ture' is neither true nor false" in refused.stderr, refused.stderr
    missing = subprocess.run(
        [exe, "launch", "sim_master", "nope.launch.xml"], capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 2 and "no launch file 'nope.launch.xml' in package 'sim_master'" in missing.stderr


def test_process_output_is_prefixed(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    from sim_tools.launching.runner import LaunchRunner

    path = write(tmp_path / "one.launch.xml", """<launch>
  <node pkg="sim_master" exec="soccersim" name="versioned" args="version" on_exit="shutdown"/>
</launch>""")
    assert LaunchRunner(load_launch_file(path), log=lambda _m: None).run(duration=30.0) == 0
    time.sleep(0.2)  # the output thread drains the pipe after the child exits
    assert re.search(r"^\[versioned-1\] soccersim \d", capfd.readouterr().out, re.M)


def test_executable_and_set_parameter(tmp_path: Path) -> None:
    path = write(tmp_path / "x.launch.xml", """<launch>
  <set_parameter name="use_sim_time" value="true"/>
  <executable cmd="python3 -c 'print(1)'" name="printer" on_exit="shutdown"/>
  <group>
    <set_parameter name="rules" value="fifa"/>
    <node pkg="sim_master" exec="soccersim" name="inner"><param name="rules" value="ssim"/></node>
  </group>
  <node pkg="sim_master" exec="soccersim" name="outer"/>
</launch>""")
    printer, inner, outer = load_launch_file(path).nodes
    assert node_command(printer)[1:] == ["-c", "print(1)"] and printer.shutdown_on_exit
    assert inner.parameters == {"use_sim_time": "true", "rules": "ssim"}  # its own <param> wins
    assert outer.parameters == {"use_sim_time": "true"}  # the group's set_parameter stays in the group


def test_yaml_launch_files(tmp_path: Path) -> None:
    path = write(tmp_path / "m.launch.yaml", """launch:
- arg: {name: team, default: Lions}
- node:
    pkg: sim_master
    exec: soccersim
    name: server
    on_exit: shutdown
    param:
    - {name: sync, value: true}
    remap:
    - {from: percept, to: /x/percept}
- group:
    children:
    - push-ros-namespace: {namespace: teams}
    - node: {pkg: sim_master, exec: soccersim, name: "$(var team)"}
""")
    server, team = load_launch_file(path, {"team": "Tigers"}).nodes
    assert server.parameters == {"sync": "true"} and server.remappings == [("percept", "/x/percept")]
    assert server.shutdown_on_exit and (team.name, team.namespace) == ("Tigers", "/teams")
    bad = write(tmp_path / "bad.launch.yaml", "launch:\n- node: {pkg: a, exec: b, respwan: true}\n")
    with pytest.raises(LaunchFileError, match="<node> has no attribute 'respwan'"):
        load_launch_file(bad)
    with pytest.raises(LaunchFileError, match="holds `launch:`"):
        load_launch_file(write(tmp_path / "empty.launch.yaml", "nodes: []\n"))


LAUNCH_DIR = Path(__file__).resolve().parents[4] / "launch"
SERVER_OPTIONS = {"mode", "engine", "half_time", "log", "simspark_port", "simspark_monitor_port", "rcsssmj_port",
                  "rcsssmj_monitor_port", "service_port", "web_port", "draw_port"}


@pytest.mark.parametrize("name", ["server.launch.xml", "match.launch.xml"])
def test_the_launch_files_offer_every_server_option_with_a_description(name: str) -> None:
    import xml.etree.ElementTree as ET

    args = {a.get("name"): a.get("description") for a in ET.parse(LAUNCH_DIR / name).getroot().iter("arg")}
    assert SERVER_OPTIONS <= set(args), SERVER_OPTIONS - set(args)
    assert all(args.values()), [n for n, d in args.items() if not d]


def test_an_empty_parameter_value_reaches_the_node_as_an_empty_string(tmp_path: Path) -> None:
    """rcl refuses `-p log_path:=`; ros2 launch passes an empty string (the server.launch.xml
    default for `log`)."""
    main = write(tmp_path / "main.launch.xml", """<launch>
      <arg name="log" default=""/>
      <node pkg="sim_master" exec="soccersim" name="server" args="version">
        <param name="log_path" value="$(var log)"/>
      </node>
    </launch>""")
    (node,) = load_launch_file(main, {}).nodes
    cmd = node_command(node)
    assert cmd[cmd.index("-p") + 1] == "log_path:=''"
