"""Plateau: a circuit breaker for LLM agents."""

from __future__ import annotations

__version__ = "0.1.0"
