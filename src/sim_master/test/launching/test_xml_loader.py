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
    ("<node pkg='sim_master' exec='soccersim'><bogus/></node>", "unsupported element <bogus>"),
    ("<timer period='1'/>", "unsupported element <timer>"),
    ("<node pkg='sim_master' exec='soccersim' name='$(var nope)'/>", "'nope' is not defined"),
    ("<arg name='required'/>", "argument 'required' needs a value"),
])
def test_unsupported_or_broken_files_fail_with_the_reason(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path / "bad.launch.xml", f"<launch>{body}</launch>")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_launch_file(path)


def test_not_a_launch_file(tmp_path: Path) -> None:
    with pytest.raises(LaunchFileError, match="expected <launch>"):
        load_launch_file(write(tmp_path / "x.xml", "<sdf/>"))
