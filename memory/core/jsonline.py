"""One JSONL line parsed exactly as `json.loads` parses it, without importing `json`.

`import json` costs ~7 ms (it pulls in `re`): a third of the ~20 ms `grep | jq` takes, which
`recall.sh KEYWORD --all` must not exceed (with `json` it took 1.00x at 1,000 entries, with this module
0.68x: docs/performance.md). The parser itself is CPython's C scanner (`_json`, which `json` uses too);
this module only does what `json.loads` does around it. Where `_json` is missing (another Python
implementation) or the line is anything but a plain UTF-8 object, `json.loads` itself decides.
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


def loads(line: bytes) -> Any:
    """The value of one line of JSON; ValueError (as json.loads raises it) when it is not JSON."""
    scan = _scanner()
    # json.loads decodes bytes as UTF-8 when they start with an ASCII "{" followed by a non-NUL byte
    # (its detect_encoding), with the surrogatepass handler
    if scan is None or line[:1] != b"{" or line[1:2] in (b"", b"\x00"):
        import json

        return json.loads(line)
    text = line.decode("utf-8", "surrogatepass")  # UnicodeDecodeError is a ValueError, as from json.loads
    try:
        value, end = scan(text, 0)
    except StopIteration:
        raise ValueError("Expecting value") from None
    except SystemError:  # the scanner raises its error through json.decoder, which only an import of json loads
        import json

        return json.loads(line)
    if text[end:].strip(WHITESPACE):
        raise ValueError("Extra data")
    return value
