"""Issue 43: every place that makes something per dialect derives it from one registry
(`sim_bridge.dialects.all_dialects`); what cannot derive it (a Literal type, a declaration)
is checked against it here, so a dialect added without them fails this test."""
from __future__ import annotations

from typing import get_args

from sim_bridge.dialects import all_dialects
from sim_contracts import names
from sim_contracts.percept import DIALECTS
from sim_master.master.config import ServerConfig
from sim_master.master.players import Source


def test_one_list_of_dialects_whatever_asks() -> None:
    dialects = all_dialects()
    assert tuple(dialects) == DIALECTS  # the percept's wire declarations know every dialect
    assert set(get_args(Source)) == {*dialects, "ros", "local"}
    for name, dialect in dialects.items():
        assert dialect.name == name
        assert names.CONNECTION_NAME.fullmatch(f"{name}-7")  # its agents' connection names are reserved
        assert ServerConfig().agent_port(name) == dialect.default_port  # the reference server's port
    assert not names.CONNECTION_NAME.fullmatch("other-7")


def test_the_separate_bridge_offers_a_port_parameter_per_dialect() -> None:
    from sim_bridge.ros.standalone import PARAMETERS

    offered = {p.name: p.default for p in PARAMETERS}
    for name, dialect in all_dialects().items():
        assert offered[f"{name}_port"] == dialect.default_port
