"""The field from above as a PNG (Pillow): lines, goals, robots with number and heading,
ball, and a title line with teams, score, time and play mode."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from sim_master.world.spec import FieldSpec

GRASS = (46, 125, 50)
LINE = (235, 235, 235)
SIDE_COLOURS = {"left": (30, 90, 230), "right": (220, 40, 40), "": (160, 160, 160)}
BALL = (255, 160, 0)


@dataclass(slots=True)
class RobotMark:
    side: str
    unum: int
    x: float
    y: float
    yaw_deg: float


@dataclass(slots=True)
class FieldPicture:
    field: FieldSpec
    robots: list[RobotMark] = dataclasses.field(default_factory=list)
    ball: tuple[float, float] | None = None
    title: str = ""
    teams: tuple[str, str] = ("", "")  # left, right: the legend names them in their colours


class _Canvas:
    def __init__(self, spec: FieldSpec, width_px: int) -> None:
        self.spec = spec
        margin = 1.5
        self.scale = width_px / (spec.length + 2 * margin)
        self.w = width_px
        self.h = int((spec.width + 2 * margin) * self.scale) + 40
        self.ox, self.oy = margin + spec.length / 2, margin + spec.width / 2

    def px(self, x: float, y: float) -> tuple[float, float]:
        return ((x + self.ox) * self.scale, 40 + (self.oy - y) * self.scale)


def _draw_field(draw: ImageDraw.ImageDraw, c: _Canvas) -> None:
    f = c.spec
    lw = max(1, int(c.scale * 0.05))
    for x1, y1, x2, y2 in f.drawing_lines():
        draw.line([c.px(x1, y1), c.px(x2, y2)], fill=LINE, width=lw)
    for sx in (-1, 1):
        x0, x1 = sx * f.length / 2, sx * (f.length / 2 + f.goal_depth)
        a, b = c.px(min(x0, x1), f.goal_width / 2), c.px(max(x0, x1), -f.goal_width / 2)
        draw.rectangle([a, b], outline=(255, 255, 120), width=lw)


def render_field_png(picture: FieldPicture, path: str, *, width_px: int = 1200) -> None:
    c = _Canvas(picture.field, width_px)
    img = Image.new("RGB", (c.w, c.h), GRASS)
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, c.w, 40], fill=(20, 20, 20))
    draw.text((10, 12), picture.title, fill=(255, 255, 255))
    _legend(draw, c, picture.teams)
    _draw_field(draw, c)
    radius = max(4.0, 0.25 * c.scale)
    for r in picture.robots:
        cx, cy = c.px(r.x, r.y)
        colour = SIDE_COLOURS.get(r.side, SIDE_COLOURS[""])
        draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=colour, outline=(0, 0, 0))
        hx = cx + radius * 1.4 * math.cos(math.radians(r.yaw_deg))
        hy = cy - radius * 1.4 * math.sin(math.radians(r.yaw_deg))
        draw.line([(cx, cy), (hx, hy)], fill=(0, 0, 0), width=2)
        draw.text((cx - 4, cy - 6), str(r.unum), fill=(255, 255, 255))
    if picture.ball is not None:
        bx, by = c.px(*picture.ball)
        br = max(3.0, 0.15 * c.scale)
        draw.ellipse([bx - br, by - br, bx + br, by + br], fill=BALL, outline=(0, 0, 0))
    img.save(path)


def _legend(draw: ImageDraw.ImageDraw, c: _Canvas, teams: tuple[str, str]) -> None:
    """Team colours and names at the right of the title bar."""
    x = c.w - 10
    for side, name in (("right", teams[1]), ("left", teams[0])):
        if not name:
            continue
        width = int(draw.textlength(name))
        x -= width
        draw.text((x, 12), name, fill=(255, 255, 255))
        draw.rectangle([x - 16, 13, x - 6, 23], fill=SIDE_COLOURS[side])
        x -= 30


def render_heatmap_png(ball_xy: Sequence[tuple[float, float]], spec: FieldSpec, path: str, *,
                       width_px: int = 1200, cell_m: float = 0.5, title: str = "ball positions") -> None:
    c = _Canvas(spec, width_px)
    nx, ny = int(math.ceil(spec.length / cell_m)), int(math.ceil(spec.width / cell_m))
    grid = np.zeros((ny, nx))
    for x, y in ball_xy:
        i = int((y + spec.width / 2) / cell_m)
        j = int((x + spec.length / 2) / cell_m)
        if 0 <= i < ny and 0 <= j < nx:
            grid[i, j] += 1
    img = Image.new("RGB", (c.w, c.h), (30, 60, 30))
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, c.w, 40], fill=(20, 20, 20))
    draw.text((10, 12), f"{title} ({len(ball_xy)} samples)", fill=(255, 255, 255))
    peak = grid.max() or 1.0
    for i in range(ny):
        for j in range(nx):
            if grid[i, j] == 0:
                continue
            v = math.sqrt(grid[i, j] / peak)
            colour = (int(255 * v), int(200 * (1 - abs(v - 0.5) * 2)), int(255 * (1 - v)))
            x0, y0 = -spec.length / 2 + j * cell_m, -spec.width / 2 + i * cell_m
            a, b = c.px(x0, y0 + cell_m), c.px(x0 + cell_m, y0)
            draw.rectangle([a, b], fill=colour)
    _draw_field(draw, c)
    img.save(path)
