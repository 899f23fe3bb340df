"""The README's five-line agent joins a real server as written (only its port changed)."""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[4] / "README.md"


def test_the_readme_agent_joins(running_server: Callable[..., Any], capsys: Any) -> None:
    code = re.search(r"## Connect an agent.*?```python\n(.*?)```", README.read_text(), re.S)
    assert code is not None, "README has no agent example"
    assert len(code.group(1).strip().splitlines()) <= 6
    with running_server(sync=False, realtime=True) as server:
        port = server.agent_servers["simspark"].port
        exec(compile(code.group(1).replace("3100", str(port)), "README.md", "exec"), {})
        assert b"(pm BeforeKickOff)" in capsys.readouterr().out.encode()
        deadline = time.monotonic() + 20
        while server.loop.players.by_player("left", 1) is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the server's own thread admits the player
        player = server.loop.players.by_player("left", 1)
        assert player is not None and player.team == "Alpha"
