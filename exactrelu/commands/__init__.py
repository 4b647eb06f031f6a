"""Core sub-commands: demo, generate, recover, check (registered by :func:`register`)."""

from __future__ import annotations


def register(sub) -> None:
    from . import core

    core.register(sub)
