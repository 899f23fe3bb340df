"""soccersim.v1's contract messages carry sim_msgs' fields under the same names and kinds:
the ROS interface and the gRPC API are one contract (the proto's header says how stamps and
transport-only fields differ)."""
from __future__ import annotations

from typing import Any

import pytest

from sim_msgs.msg import EntityState, GameEvent, GameState, Snapshot
from soccer_referee.play_modes import PlayMode
from soccersim_api.v1 import soccersim_pb2 as pb

TRANSPORT_ONLY = {"header", "packed"}  # ROS's envelope and the distributed data plane's bytes
# sim_msgs field types -> the proto's (label, type name)
SCALARS = {"string": "string", "double": "double", "boolean": "bool", "uint8": "uint32", "uint16": "uint32",
           "uint32": "uint32", "uint64": "uint64", "builtin_interfaces/Time": "double",
           "geometry_msgs/Pose": "Pose", "geometry_msgs/Twist": "Twist", "sim_msgs/EntityState": "EntityState"}


def _proto_kind(field: Any) -> tuple[bool, str]:
    repeated = field.label == field.LABEL_REPEATED if hasattr(field, "label") else field.is_repeated
    names = {1: "double", 4: "uint64", 8: "bool", 9: "string", 13: "uint32"}
    kind = field.message_type.name if field.message_type is not None else names.get(field.type, str(field.type))
    return repeated, kind


def _ros_kind(ros_type: str) -> tuple[bool, str]:
    if ros_type.startswith("sequence<"):
        return True, SCALARS[ros_type[len("sequence<"):-1]]
    return False, SCALARS[ros_type]


@pytest.mark.parametrize("ros, proto", [(EntityState, pb.EntityState), (Snapshot, pb.Snapshot),
                                        (GameState, pb.GameState), (GameEvent, pb.GameEvent)])
def test_every_ros_field_is_in_the_proto_with_its_kind(ros: Any, proto: Any) -> None:
    fields = proto.DESCRIPTOR.fields_by_name
    for name, ros_type in ros.get_fields_and_field_types().items():
        if name in TRANSPORT_ONLY:
            continue
        assert name in fields, f"{proto.__name__} lacks {ros.__name__}'s field {name}"
        assert _proto_kind(fields[name]) == _ros_kind(ros_type), f"{proto.__name__}.{name}"


def test_play_modes_are_the_referees_strings() -> None:
    """play_mode is the SimSpark string and play_mode_index its monitor number, as on /game_state."""
    from sim_master.api import convert
    from soccer_referee.game_state import GameStateSnapshot

    for mode in PlayMode:
        state = GameStateSnapshot(play_mode=mode)
        msg = convert.game_state(state, 1.5)
        assert (msg.play_mode, msg.play_mode_index) == (mode.value, mode.monitor_index)
