"""Tuned figures as a vector: what the tuners (bench/tune_walk.py, tune_motion.py) search is a
dataclass of floats (WalkParams, KickParams), read and written as one array in field order."""
from __future__ import annotations

from dataclasses import Field, fields, replace
from typing import Any, ClassVar, TypeVar

import numpy as np

F = TypeVar("F", bound="Figures")


class Figures:
    """A mixin for frozen dataclasses whose fields are all floats."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # set by @dataclass on the subclass

    def vector(self) -> np.ndarray:
        return np.array([getattr(self, f.name) for f in fields(self)])

    @classmethod
    def from_vector(cls: type[F], values: np.ndarray | list[float]) -> F:
        return cls(**{f.name: float(v) for f, v in zip(fields(cls), values, strict=True)})

    def with_(self: F, **changes: Any) -> F:
        return replace(self, **changes)
