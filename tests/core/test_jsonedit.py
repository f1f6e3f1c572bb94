"""memory.core.jsonedit: a JSON document changed to hold a new value, every byte outside the change kept."""
import json

import pytest

from memory.core import jsonedit

TEXT = '{ "a" :[1,2 , 3],\n\t"b": {"x": "caf\\u00e9"}  ,"c":[ ]\n}  \n'
SAME = {"a": [1, 2, 3], "b": {"x": "café"}, "c": []}


@pytest.mark.parametrize("new, expected", [
    (SAME, TEXT),
    ({"a": [1, 3], "b": {"x": "café"}, "c": []}, '{ "a" :[1 , 3],\n\t"b": {"x": "caf\\u00e9"}  ,"c":[ ]\n}  \n'),
    ({"a": [1, 2, 3, 4], "b": {"x": "café"}, "c": []},
     '{ "a" :[1,2 , 3 , 4],\n\t"b": {"x": "caf\\u00e9"}  ,"c":[ ]\n}  \n'),
    ({"a": [1, 2, 3], "b": {"x": "café"}}, '{ "a" :[1,2 , 3],\n\t"b": {"x": "caf\\u00e9"}\n}  \n'),
    ({"a": [1, 2, 3], "b": {"x": "café", "y": True}, "c": []},
     '{ "a" :[1,2 , 3],\n\t"b": {"x": "caf\\u00e9","y" :true}  ,"c":[ ]\n}  \n'),  # the file's own spacing
    ({"a": [1, 2, 3], "b": {"x": "café"}, "c": [{"k": 1}]},
     '{ "a" :[1,2 , 3],\n\t"b": {"x": "caf\\u00e9"}  ,"c":[\n\t\t{\n\t\t\t"k" :1\n\t\t}\n\t]\n}  \n'),
])
def test_only_the_changed_spans_change(new, expected):
    assert jsonedit.edit(TEXT, new) == expected
    assert json.loads(expected) == new


def test_an_added_then_removed_entry_gives_back_the_bytes():
    text = '{\r\n   "hooks": {\r\n      "Stop": [ {"x": 1} ]\r\n   }\r\n}'
    added = jsonedit.edit(text, {"hooks": {"Stop": [{"x": 1}, {"y": 2}], "New": [{"z": 3}]}})
    # the new member is compact like its neighbour; CRLF and the 3-space indentation are the file's
    assert added == ('{\r\n   "hooks": {\r\n      "Stop": [ {"x": 1}, {"y": 2} ],\r\n      "New": [{"z": 3}]\r\n'
                     '   }\r\n}')
    spread = jsonedit.edit(text.replace('[ {"x": 1} ]', '[\r\n{"x": 1}]'), {"hooks": {"Stop": [{"x": 1}], "New": [1]}})
    assert spread.endswith('"New": [\r\n         1\r\n      ]\r\n   }\r\n}')  # indented like the file
    assert jsonedit.edit(added, {"hooks": {"Stop": [{"x": 1}]}}) == text


def test_1_and_true_and_1_0_are_told_apart():
    assert jsonedit.edit('{"a": 1}', {"a": True}) == '{"a": true}'
    assert jsonedit.edit('{"a": 1}', {"a": 1.0}) == '{"a": 1.0}'


def test_what_cannot_be_edited_in_place():
    assert jsonedit.edit('{"a": 1, "a": 2}', {"a": 3}) == '{"a": 3}'  # duplicate keys: that object whole
    assert jsonedit.edit("[1, 2", [1]) is None  # not JSON: the caller decides
    assert jsonedit.edit('{"a": 1} x', {}) is None
    deep = "[" * 5000 + "]" * 5000
    assert jsonedit.edit(deep, []) is None  # too deep to walk: never a crash


def test_comments_are_space_and_stay_where_they_are():
    """Gemini CLI's settings.json may hold `//` and `/* */` comments: an edit keeps every one, once, and takes
    back out what it added byte for byte; a new member is never written after a copied comment."""
    text = '{\n  // first\n  "a": [1, /* one */ 2],\n  "b": {"c": "http://x"} // last\n}\n'
    added = jsonedit.edit(text, {"a": [1, 2, 3], "b": {"c": "http://x"}, "d": True})
    assert added is not None
    for comment in ("// first", "/* one */", "// last"):
        assert added.count(comment) == 1
    assert '"a": [1, /* one */ 2, 3],' in added and '"d": true // last' in added
    assert jsonedit.edit(added, {"a": [1, 2], "b": {"c": "http://x"}}) == text
