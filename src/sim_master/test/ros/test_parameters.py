"""The server's settings are ROS parameters: one per ServerConfig field, set with -p or a YAML
params file (winning over the flags), refused in one line when wrong, and readable with
their descriptions and ranges from the running node."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rcl_interfaces.srv import DescribeParameters, GetParameters

from sim_master.master.config import ServerConfig
from sim_master.ros.parameters import NOT_PARAMETERS, SETTINGS, ParameterError, apply, read_overrides


def test_every_setting_is_a_parameter() -> None:
    fields = {f.name for f in dataclasses.fields(ServerConfig)} - set(NOT_PARAMETERS)
    assert {s.name for s in SETTINGS} == fields


def test_ros_args_and_a_params_file_set_the_config(tmp_path: Path) -> None:
    params = tmp_path / "match.yaml"
    params.write_text("soccersim:\n  ros__parameters:\n    rules: fifa\n    half_time: 600.0\n    web_port: -1\n")
    overrides = read_overrides(["--ros-args", "-p", "sync:=true", "-p", "world:=fifa7vs7_field",
                                "--params-file", str(params)], "soccersim")
    config = apply(ServerConfig(web_port=8080), overrides)
    assert (config.sync, config.world, config.rules, config.half_time) == (True, "fifa7vs7_field", "fifa", 600.0)
    assert config.web_port is None and config.log_path is None  # -1 disables; untouched stays
    with pytest.raises(ParameterError, match="web_port: 99999 outside -1..65535"):
        apply(ServerConfig(), {"web_port": 99999})
    with pytest.raises(ParameterError, match="unknown parameter 'wrold'"):
        apply(ServerConfig(), {"wrold": "x"})
    with pytest.raises(ParameterError, match="parameter sync must be a bool, not .yes."):
        apply(ServerConfig(), {"sync": "yes"})


def test_a_bad_parameter_is_one_line() -> None:
    result = subprocess.run([sys.executable, "-m", "sim_master.cli", "server", "--ros-args", "-p", "web_port:=99999"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["soccersim server: parameter web_port: 99999 outside -1..65535"]


def test_integers_are_taken_for_float_parameters(running_server: Callable[..., Any], ros_caller: Any) -> None:
    """`-p tf_rate:=20` is an integer to ROS; a user means 20.0 (rclpy alone refuses it)."""
    args = ["--ros-args", "-p", "tf_rate:=20", "-p", "half_time:=120"]
    with running_server(args, sync=False, realtime=True, ros=True, node_name="sim_ints"):
        values = ros_caller.call(GetParameters, "/sim_ints/get_parameters",
                                 GetParameters.Request(names=["tf_rate", "half_time"])).values
        assert (values[0].double_value, values[1].double_value) == (20.0, 120.0)
    result = subprocess.run([sys.executable, "-m", "sim_master.cli", "server", "--max-cycles", "20", "--web-port", "-1",
                             "--simspark-port", "0", "--rcsssmj-port", "0", "--simspark-monitor-port", "-1",
                             "--rcsssmj-monitor-port", "-1", "--service-port", "-1", "--draw-port", "-1", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "stopped after 20 cycles" in result.stdout + result.stderr, result.stderr[-2000:]


def test_the_running_node_shows_its_parameters(running_server: Callable[..., Any], ros_caller: Any) -> None:
    with running_server(sync=False, realtime=True, ros=True, node_name="sim_params", rules="fifa"):
        call = ros_caller.call
        values = call(GetParameters, "/sim_params/get_parameters", GetParameters.Request(names=["rules", "sync"]))
        assert values.values[0].string_value == "fifa" and values.values[1].bool_value is False
        described = call(DescribeParameters, "/sim_params/describe_parameters",
                         DescribeParameters.Request(names=["web_port"])).descriptors[0]
        assert described.read_only and "browser monitor" in described.description
        assert (described.integer_range[0].from_value, described.integer_range[0].to_value) == (-1, 65535)


def test_dynamic_parameters_change_the_running_server(running_server: Callable[..., Any], ros_caller: Any) -> None:
    """sync_timeout, log_players and tf_rate change live, within their ranges; the others
    stay read-only."""
    from rcl_interfaces.msg import Parameter as ParameterMsg
    from rcl_interfaces.msg import ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters

    def set_value(name: str, value: ParameterValue) -> Any:
        request = SetParameters.Request(parameters=[ParameterMsg(name=name, value=value)])
        return ros_caller.call(SetParameters, "/sim_dyn/set_parameters", request).results[0]

    def double(v: float) -> ParameterValue:
        return ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=v)

    with running_server(sync=False, realtime=True, ros=True, node_name="sim_dyn") as server:
        for _ in range(3):  # a first call can go unanswered while discovery is under way (a loaded machine)
            try:
                ros_caller.call(GetParameters, "/sim_dyn/get_parameters", GetParameters.Request(names=["sync"]),
                                timeout=10.0)
                break
            except AssertionError:
                continue
        assert set_value("sync_timeout", double(0.25)).successful
        ros_caller.spin_until(lambda: server.config.sync_timeout == 0.25, "the loop took the new timeout")
        assert all(a.sync_timeout == 0.25 for a in server.agent_servers.values())
        refused = set_value("sync_timeout", double(-1.0))
        assert not refused.successful and "range" in refused.reason and server.config.sync_timeout == 0.25
        assert set_value("log_players", ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=True)).successful
        ros_caller.spin_until(lambda: server.config.log_players, "log_players on")
        rules = ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="ssim")
        assert not set_value("rules", rules).successful
