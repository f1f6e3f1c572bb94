"""memory.core.jsonio answers as json does (value or error), through the C scanner and encoder."""
import json

import pytest

from memory.core import jsonio, jsonline

DOCUMENTS = [b'{"a":1}', b'{"a":1}  \n', '{"a":1}\r\n', b'{"a":1} x', b'{"a":1}{"b":2}', b'{"a":', b"", "  ",
             b' {"a":1}', b"[1]", b"3", '{"a":"\u00e9"}', "\ufeff{\"a\":1}", b'{"a":NaN}', b"{\x00", b'{"a":"\xff"}',
             b'{"a": "\\ud800"}', '{"a": 1e400, "b": -0.0, "c": 12345678901234567890}', b'{"a":[{"b":null}]}',
             b"{" * 100_000]


def outcome(function, argument):
    try:
        return "value", repr(function(argument))
    except (ValueError, TypeError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_loads_gives_what_json_gives(document):
    assert outcome(jsonline.loads, document) == outcome(json.loads, document)
    assert outcome(jsonio.loads, document) == outcome(json.loads, document)


circular: dict = {}
circular["self"] = circular
OBJECTS = [{"a": 1}, {"k": "é\u2028\x00\"\\\t"}, {"f": 1.1, "g": 1e300, "n": None, "t": True, "l": [1, {"x": []}]},
           {"nan": float("nan"), "inf": float("-inf")}, {1: 2, 2.5: 3, None: 4, False: 5}, "line\n\"é", {"s": "\ud800"},
           {"big": 10 ** 30}, {"o": object()}, {(1, 2): 3}, circular, [1, "two"], 3.5]


@pytest.mark.parametrize("obj", OBJECTS, ids=range(len(OBJECTS)))
def test_dumps_gives_what_json_gives(obj):
    expected = outcome(lambda o: json.dumps(o, ensure_ascii=False, separators=(",", ":")), obj)
    assert outcome(jsonio.dumps, obj) == expected
    assert outcome(jsonio.dumps, obj) == expected  # the encoder is built per call: no state left behind


def test_a_broken_object_in_a_fresh_interpreter_is_json_s_error():
    """The C scanner raises its errors through json.decoder, which nothing has imported yet on the hook path."""
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import sys; sys.path.insert(0, sys.argv[1]); from memory.core import jsonio, jsonline\n"
            "for loads in (jsonio.loads, jsonline.loads):\n"
            "    try:\n        loads(b'{\"key\": \"torn')\n    except ValueError as exc:\n"
            "        print(type(exc).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["JSONDecodeError", "JSONDecodeError"]


def test_without_comments_keeps_strings_and_line_numbers():
    from memory.core import jsonio

    text = '{\n  // mine\n  "url": "http://x//y", /* a\n block */ "k": "a /* not */ b"\n}\n'
    plain = jsonio.without_comments(text)
    assert json.loads(plain) == {"url": "http://x//y", "k": "a /* not */ b"}
    assert plain.count("\n") == text.count("\n") and len(plain) == len(text)
