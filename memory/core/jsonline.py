"""One JSONL line parsed exactly as `json.loads` parses it, without importing `json`.

`import json` costs ~7 ms (it pulls in `re`): a third of the ~20 ms `grep | jq` takes, which
`recall.sh KEYWORD --all` must not exceed (with `json` it took 1.00x at 1,000 entries, with this module
0.68x: docs/performance.md). The parser itself is CPython's C scanner (`_json`, which `json` uses too);
this module only does what `json.loads` does around it. Where `_json` is missing (another Python
implementation), the line is anything but a plain UTF-8 object, or it is not valid, `json.loads` itself
decides (and words the error).
tests/core/test_jsonline.py holds the two to the same answers.
"""
from __future__ import annotations

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Callable

WHITESPACE = " \t\n\r"  # json's own (its WHITESPACE pattern)
_scan: Callable[[str, int], tuple[Any, int]] | None = None


class _Context:
    """The attributes `_json.make_scanner` reads, as `json.JSONDecoder()` sets them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


def _scanner() -> Callable[[str, int], tuple[Any, int]] | None:
    global _scan
    if _scan is None:
        try:
            from _json import make_scanner
        except ImportError:
            return None
        _scan = make_scanner(_Context())  # type: ignore[arg-type]  # any object with these attributes
    return _scan


def loads(line: str | bytes) -> Any:
    """The value of one JSON document, or the error json.loads raises for it (json is imported only then, or
    for anything but a plain object, or where `_json` is missing)."""
    scan = _scanner()
    text = None
    if scan is not None and isinstance(line, str):
        text = line if line[:1] == "{" else None
    # json.loads decodes bytes as UTF-8 when they start with an ASCII "{" followed by a non-NUL byte
    # (its detect_encoding), with the surrogatepass handler
    elif scan is not None and isinstance(line, bytes) and line[:1] == b"{" and line[1:2] not in (b"", b"\x00"):
        try:
            text = line.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            text = None
    if text is not None and scan is not None:
        try:
            value, end = scan(text, 0)
            if not text[end:].strip(WHITESPACE):
                return value
        except (StopIteration, ValueError, RecursionError, SystemError):
            pass  # SystemError: the scanner raises its errors through json.decoder, loaded only by an import of json
    import json  # not a plain object, or not valid: json answers (the error as json words it)

    return json.loads(line)


def loads_lenient(line: bytes) -> Any:
    """`loads`, except that a line that is valid JSON but not UTF-8 (a teammate's cp1252 editor wrote `é` as one
    byte) is read with U+FFFD for such bytes, instead of hiding the whole entry; its errors are `loads`'s."""
    try:
        return loads(line)
    except ValueError:
        try:
            line.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return loads(line.decode("utf-8", "replace"))
        raise
