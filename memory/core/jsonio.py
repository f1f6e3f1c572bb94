"""JSON encoding in one place: compact lines, stdlib json for small documents, orjson for bulk reads.

Measured on the reference machine: `import orjson` costs ~25 ms, `import json` ~7 ms, and a hook
parses one small payload, so hooks use json; orjson only pays off on megabytes (recall over an archive).
"""
from __future__ import annotations

import json

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Callable

BULK_BYTES = 1 << 20
_orjson_loads: Callable[[Any], Any] | None = None
_orjson_checked = False


def bulk_loads() -> Callable[[Any], Any]:
    """The fastest available `loads` for many documents (orjson when importable, else json)."""
    global _orjson_loads, _orjson_checked
    if not _orjson_checked:
        _orjson_checked = True
        try:
            import orjson
            _orjson_loads = orjson.loads
        except ImportError:
            _orjson_loads = None
    return _orjson_loads or json.loads


def loads(data: Any) -> Any:
    """Parse one JSON document; big ones go through the bulk parser."""
    if len(data) >= BULK_BYTES:
        return bulk_loads()(data)
    return json.loads(data)


def dumps(obj: Any) -> str:
    """Compact JSON on one line; non-ASCII kept as is, control characters escaped."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumps_line(obj: Any) -> bytes:
    """One JSONL record: compact JSON, UTF-8, newline-terminated."""
    return (dumps(obj) + "\n").encode("utf-8", "replace")
