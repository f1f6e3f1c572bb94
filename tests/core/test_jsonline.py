"""memory.core.jsonline parses a line exactly as json.loads does: same value, or a ValueError from both."""
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.core import jsonline

values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                      max_leaves=12)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def outcome(parse, line: bytes):
    try:
        return ("value", parse(line))
    except ValueError:
        return ("error", None)
    except RecursionError:
        return ("deep", None)


def check(line: bytes) -> None:
    ours, theirs = outcome(jsonline.loads, line), outcome(json.loads, line)
    assert ours[0] == theirs[0] and same(ours[1], theirs[1]), line


@settings(max_examples=300)
@given(obj=st.dictionaries(st.text(), values, max_size=6), ascii_only=st.booleans(), spaced=st.booleans())
def test_objects_as_the_store_writes_them(obj, ascii_only, spaced):
    text = json.dumps(obj, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":"))
    check(text.encode("utf-8", "surrogatepass"))
    check((text + " \t\r\n").encode("utf-8", "surrogatepass"))


@settings(max_examples=300)
@given(data=st.binary(max_size=60))
def test_any_bytes(data):
    check(data)
    check(b"{" + data)
    check(b'{"key": "' + data + b'"}')


@pytest.mark.parametrize("line", [b"", b"{", b"{}", b"{} x", b"{}{}", b" {}", b"\xef\xbb\xbf{}", b'{"a": NaN}',
                                  b'{"a": -Infinity, "b": Infinity}', b'{"a": 1e400}', b'{"a": "\\ud800"}',
                                  b'{"a": "\xed\xa0\x80"}', b'{"a": "\xff"}', b"[1, 2]", b"3", b'"x"', b"{\x00}",
                                  b'{"a": [' * 5000 + b"]" * 5000 + b"}", b'{"a": 1, "a": 2}',
                                  b'{"a": "tab\there"}'])
def test_edges(line):
    check(line)


def test_lenient_reads_a_byte_that_is_not_utf8_and_keeps_every_other_error():
    assert jsonline.loads_lenient(b'{"a": "caf\xe9"}') == {"a": "caf\ufffd"}
    assert jsonline.loads_lenient(b'{"a": "caf\xc3\xa9"}') == {"a": "caf\u00e9"}
    for broken in (b'{"a": ', b'{"a": "\xe9"', b"not json"):
        with pytest.raises(ValueError):
            jsonline.loads_lenient(broken)
