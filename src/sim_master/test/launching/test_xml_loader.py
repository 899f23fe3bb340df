"""Launch XML is read as ros2 launch reads it: args, includes, namespaces, remaps, params."""
from __future__ import annotations

from pathlib import Path

import pytest

from sim_master.launching.runner import node_command
from sim_master.launching.xml_loader import LaunchFileError, load_launch_file


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
    ("<node pkg='sim_master' exec='soccersim' name='$(var nope)'/>", "'nope' is not defined"),
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
    from sim_master.launching.runner import LaunchRunner

    path = write(tmp_path / "respawn.launch.xml", """<launch>
  <node pkg="sim_master" exec="soccersim" args="version" respawn="true" respawn_delay="0.1"/>
</launch>""")
    lines: list[str] = []
    LaunchRunner(load_launch_file(path), log=lines.append).run(duration=6.0)
    assert sum(line.startswith("[launch] started soccersim") for line in lines) >= 2, lines
    assert any("respawning" in line for line in lines)
