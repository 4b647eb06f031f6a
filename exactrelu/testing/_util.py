"""Shared helpers of the strategies: an argument is either a value or a strategy."""

from __future__ import annotations

from typing import Any

from hypothesis.strategies import SearchStrategy

from ..validation import check_integer


def resolve(draw, value: Any) -> Any:
    """Draw from ``value`` when it is a strategy, return it unchanged otherwise."""
    return draw(value) if isinstance(value, SearchStrategy) else value


def positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Check a drawn size argument (InvalidInput names the argument)."""
    return check_integer(value, name, minimum=minimum)
