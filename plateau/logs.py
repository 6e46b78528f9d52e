"""Structured logs: one JSON object per line (``plateau serve --log-format json``).

Each record carries ``ts`` (ISO 8601, UTC), ``level`` (lower case), ``logger``, ``msg`` and
every field passed through ``extra=`` (the server logs ``rpc``, ``tenant``, ``run_id``,
``step``, ``code`` and ``ms`` per call); an exception adds ``exc``. Token values are never
logged. The records are written by python-json-logger (the ``server`` extra).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.json import JsonFormatter as _Base

__all__ = ["JsonFormatter"]


class JsonFormatter(_Base):
    """Formats a :class:`logging.LogRecord` as one line of JSON (python-json-logger)."""

    def __init__(self) -> None:
        super().__init__(
            ["name", "message"],
            rename_fields={"name": "logger", "message": "msg", "exc_info": "exc"},
            json_ensure_ascii=False,
            json_default=repr,
        )

    def add_fields(self, log_record: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        log_record["ts"] = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        log_record["level"] = record.levelname.lower()
        super().add_fields(log_record, record, message_dict)
