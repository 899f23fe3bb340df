"""docs/foxglove_layout.json (Foxglove's layout format, made with its SDK's `foxglove.layouts`):
every topic its panels read is one the replay log records and the live server publishes, so
the layout works on both (issue 30: a ROS view of the match)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sim_master.store.mcap_log import TOPICS

LAYOUT = Path(__file__).resolve().parents[4] / "docs" / "foxglove_layout.json"


def _topics(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "topics" and isinstance(value, dict):
                found |= set(value)
            elif key in ("topicPath", "value") and isinstance(value, str):
                found.add(re.split(r"[.{\[]", value, maxsplit=1)[0])
            else:
                found |= _topics(value)
    elif isinstance(node, list):
        for item in node:
            found |= _topics(item)
    return found


def test_the_foxglove_layout_reads_only_topics_the_log_and_the_server_have() -> None:
    layout = json.loads(LAYOUT.read_text())
    assert layout["version"] == 1 and layout["content"]["type"] == "split"
    topics = _topics(layout)
    assert {"/markers", "/drawings", "/game_state", "/game_events"} <= topics
    assert topics <= set(TOPICS), topics - set(TOPICS)
