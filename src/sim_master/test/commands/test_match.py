"""`soccersim match`: a short match with the demo teams writes a summary, a replay log and
pictures that show the field."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image

from sim_master.store.mcap_log import ReplayLogReader


def test_short_match_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = subprocess.run([shutil.which("soccersim") or "soccersim", "match", "--duration", "20",
                             "--players", "4", "--out", str(out), "--seed", "3"],
                            capture_output=True, text=True, timeout=240, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "cycles/s" in result.stdout and "final:" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["play_mode"] == "GameOver" and summary["game_time"] >= 20.0
    assert set(summary["teams"].values()) == {"Lions", "Tigers"}
    assert sum(summary["score"]) == len(summary["goals"]) and summary["cycles_per_s"] > 0
    cycles = list(ReplayLogReader(str(out / "match.mcap")).cycles())
    assert len(cycles) == summary["cycles"]
    assert sum(1 for name in cycles[-1].snapshot.entities if name.startswith("local:")) == 8
    final = np.asarray(Image.open(out / "final.png").convert("RGB")).astype(int)
    blue = ((final[..., 2] > 200) & (final[..., 0] < 60)).sum()
    red = ((final[..., 0] > 200) & (final[..., 1] < 60) & (final[..., 2] < 60)).sum()
    assert blue > 100 and red > 100  # both teams drawn
    heat = np.asarray(Image.open(out / "heatmap.png").convert("RGB"))
    assert heat.shape == final.shape
