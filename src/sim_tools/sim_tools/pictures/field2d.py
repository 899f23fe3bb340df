"""The field from above as a PNG (Pillow): lines, goals, robots with number and heading,
ball, and a title line with teams, score, time and play mode."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from sim_physics.world.spec import FieldSpec

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


TITLE_PX: Final = 22  # the title bar's text (PIL's bitmap default is about 10 px: unreadable)
BAR_PX: Final = 40


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own scalable font (bundled); its bitmap font where FreeType is missing."""
    return ImageFont.load_default(size=size)


class _Canvas:
    def __init__(self, spec: FieldSpec, width_px: int) -> None:
        self.spec = spec
        margin = 1.5
        self.scale = width_px / (spec.length + 2 * margin)
        self.w = width_px
        self.h = int((spec.width + 2 * margin) * self.scale) + BAR_PX
        self.ox, self.oy = margin + spec.length / 2, margin + spec.width / 2

    def px(self, x: float, y: float) -> tuple[float, float]:
        return ((x + self.ox) * self.scale, BAR_PX + (self.oy - y) * self.scale)


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
    draw.rectangle([0, 0, c.w, BAR_PX], fill=(20, 20, 20))
    draw.text((10, (BAR_PX - TITLE_PX) // 2), picture.title, fill=(255, 255, 255), font=_font(TITLE_PX))
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
        number = _font(max(10, int(radius * 1.3)))
        draw.text((cx, cy), str(r.unum), fill=(255, 255, 255), font=number, anchor="mm",
                  stroke_width=1, stroke_fill=(0, 0, 0))
    if picture.ball is not None:
        bx, by = c.px(*picture.ball)
        br = max(3.0, 0.15 * c.scale)
        draw.ellipse([bx - br, by - br, bx + br, by + br], fill=BALL, outline=(0, 0, 0))
    img.save(path)


def _legend(draw: ImageDraw.ImageDraw, c: _Canvas, teams: tuple[str, str]) -> None:
    """Team colours and names at the right of the title bar."""
    x = c.w - 10
    font = _font(TITLE_PX)
    top = (BAR_PX - TITLE_PX) // 2
    for side, name in (("right", teams[1]), ("left", teams[0])):
        if not name:
            continue
        width = int(draw.textlength(name, font=font))
        x -= width
        draw.text((x, top), name, fill=(255, 255, 255), font=font)
        draw.rectangle([x - 22, top + 4, x - 6, top + 20], fill=SIDE_COLOURS[side])
        x -= 36


def heat_colour(v: float) -> tuple[int, int, int]:
    """0..1 (square root of the share of the peak) as blue -> green -> red."""
    return (int(255 * v), int(200 * (1 - abs(v - 0.5) * 2)), int(255 * (1 - v)))


def render_heatmap_png(ball_xy: Sequence[tuple[float, float]], spec: FieldSpec, path: str, *,
                       width_px: int = 1200, cell_m: float = 0.5, title: str = "ball positions") -> None:
    """Where the ball was, `cell_m` squares coloured by how often (scale at the bottom right).
    The samples are in one frame: callers mirror the second half's (sides swap at half time)."""
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
    draw.rectangle([0, 0, c.w, BAR_PX], fill=(20, 20, 20))
    draw.text((10, (BAR_PX - TITLE_PX) // 2), f"{title} ({len(ball_xy)} samples)", fill=(255, 255, 255),
              font=_font(TITLE_PX))
    peak = grid.max() or 1.0
    for i in range(ny):
        for j in range(nx):
            if grid[i, j] == 0:
                continue
            colour = heat_colour(math.sqrt(grid[i, j] / peak))
            x0, y0 = -spec.length / 2 + j * cell_m, -spec.width / 2 + i * cell_m
            a, b = c.px(x0, y0 + cell_m), c.px(x0 + cell_m, y0)
            draw.rectangle([a, b], fill=colour)
    _draw_field(draw, c)
    _colour_scale(draw, c, int(peak), cell_m)
    img.save(path)


def _colour_scale(draw: ImageDraw.ImageDraw, c: _Canvas, peak: int, cell_m: float) -> None:
    """The heat map's key, bottom right: the gradient from 0 to the peak count per cell."""
    font = _font(16)
    w, h = 240, 14
    x0, y0 = c.w - w - 20, c.h - h - 28
    draw.rectangle([x0 - 8, y0 - 26, x0 + w + 8, y0 + h + 22], fill=(20, 20, 20))
    for k in range(w):
        draw.line([(x0 + k, y0), (x0 + k, y0 + h)], fill=heat_colour(math.sqrt(k / (w - 1))))
    draw.text((x0, y0 - 22), f"samples per {cell_m:g} m cell", fill=(255, 255, 255), font=font)
    draw.text((x0, y0 + h + 2), "0", fill=(255, 255, 255), font=font)
    draw.text((x0 + w, y0 + h + 2), str(peak), fill=(255, 255, 255), font=font, anchor="ra")
