"""JSON encoding in one place: compact lines, stdlib json for small documents, orjson for bulk reads.

Measured on the reference machine: `import orjson` costs ~25 ms, `import json` ~7 ms, and a hook
parses one small payload, so hooks use json; orjson only pays off on megabytes (recall over an archive).
The json package itself (its Python modules and the patterns they compile: ~1 ms on top of `re`) is imported
only where a document is not a plain object, or fails: objects go through CPython's C scanner and encoder
(`_json`, what json uses) with json's own settings, and anything else is json's to answer, error included.
"""
from __future__ import annotations

from memory import TYPE_CHECKING
from memory.core import jsonline

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
    return _orjson_loads or jsonline.loads


def loads(data: Any) -> Any:
    """Parse one JSON document; big ones go through the bulk parser."""
    if len(data) >= BULK_BYTES:
        return bulk_loads()(data)
    return jsonline.loads(data)


_c_encoders: tuple | None = None  # (_json.encode_basestring, _json.make_encoder), or () without _json


def _no_default(obj: Any) -> Any:
    raise TypeError("not JSON serializable")  # json.dumps below says it in json's words


def dumps(obj: Any) -> str:
    """Compact JSON on one line; non-ASCII kept as is, control characters escaped: json.dumps(obj,
    ensure_ascii=False, separators=(",", ":")), through the C encoder json itself uses for it."""
    global _c_encoders
    if _c_encoders is None:
        try:
            from _json import encode_basestring, make_encoder

            _c_encoders = (encode_basestring, make_encoder)
        except ImportError:
            _c_encoders = ()
    if _c_encoders and isinstance(obj, str):
        return str(_c_encoders[0](obj))  # what json.JSONEncoder.encode does with a string
    if _c_encoders and isinstance(obj, dict):
        # json.JSONEncoder.iterencode's one-shot call: markers (check_circular), default, the string encoder of
        # ensure_ascii=False, indent, key and item separators, sort_keys, skipkeys, allow_nan
        try:
            encode = _c_encoders[1]({}, _no_default, _c_encoders[0], None, ":", ",", False, False, True)
            return "".join(encode(obj, 0))
        except (TypeError, ValueError, RecursionError):
            pass  # json.dumps raises it in its own words (or, were the C call's signature to change, answers)
    return _json_dumps(obj)


def _json_dumps(obj: Any) -> str:
    import json

    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumps_line(obj: Any) -> bytes:
    """One JSONL record: compact JSON, UTF-8, newline-terminated."""
    return (dumps(obj) + "\n").encode("utf-8", "replace")


_JSONC = None


def without_comments(text: str) -> str:
    """`text` with its `//` and `/* */` comments blanked out (strings kept whole, line numbers kept): the JSON
    with comments Gemini CLI reads its settings.json as (strip-json-comments)."""
    import re

    global _JSONC
    if _JSONC is None:
        _JSONC = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
    return _JSONC.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else re.sub(r"[^\n]", " ", m.group(0)), text)
