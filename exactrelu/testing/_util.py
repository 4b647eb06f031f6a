"""Shared helpers of the strategies: an argument is either a value or a strategy."""

from __future__ import annotations

from typing import Any

from hypothesis.strategies import SearchStrategy

from ..errors import InvalidInput


def resolve(draw, value: Any) -> Any:
    """Draw from ``value`` when it is a strategy, return it unchanged otherwise."""
    return draw(value) if isinstance(value, SearchStrategy) else value


def positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Check a drawn size argument (InvalidInput names the argument)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInput(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value
