"""Change a JSON document's text to hold a new value, touching only the spans that differ.

install.sh merges its hook entries into other people's settings files. Dumping the whole object again
would expand compact arrays, re-indent and re-escape everything: the user's diff after an install (and
after an uninstall) would be the whole file. Here the text is parsed with the position of every value
and compared with the new value; what is equal keeps its bytes, an added element or member is written in
the style of its neighbours (indentation, line ending, one per line or compact), a removed one takes its
separator with it. So an install followed by an uninstall gives back the original bytes, and a second
install changes nothing. The result is checked to parse to the new value; when it can't be made in place
(a duplicate key, a document we can't read), `edit` says so and the caller rewrites the file whole.
Comments (`//`, `/* */`: Gemini CLI's settings.json may hold them) count as space: they stay where they are.
"""
from __future__ import annotations

import difflib
import json
import re

from memory.core.jsonio import without_comments

_SPACE = re.compile(r"(?:[ \t\n\r]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)  # comments are space
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null|NaN|-?Infinity")


class Node:
    """One value's span in the text; an object's members are (key, key start, key end, value node)."""

    __slots__ = ("start", "end", "members", "elements")

    def __init__(self, start: int) -> None:
        self.start, self.end = start, start
        self.members: list[tuple[str, int, int, Node]] | None = None
        self.elements: list[Node] | None = None

    def children(self) -> list[tuple[int, int]]:
        """(start, end) of each element, or of each member from its key to the end of its value."""
        if self.members is not None:
            return [(k_start, value.end) for _, k_start, _, value in self.members]
        return [(child.start, child.end) for child in self.elements or []]


def parse(text: str) -> Node:
    """The document's value with every position (ValueError when it is not one JSON value)."""
    node, pos = _value(text, _SPACE.match(text, 0).end())  # type: ignore[union-attr]
    if _SPACE.match(text, pos).end() != len(text):  # type: ignore[union-attr]
        raise ValueError("text after the JSON value")
    return node


def _value(text: str, pos: int) -> tuple[Node, int]:
    node = Node(pos)
    char = text[pos:pos + 1]
    if char in ("{", "["):
        close = "}" if char == "{" else "]"
        if char == "{":
            node.members = []
        else:
            node.elements = []
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        while text[pos:pos + 1] != close:
            if node.members is not None:
                key = _STRING.match(text, pos)
                if key is None:
                    raise ValueError(f"expected a key at {pos}")
                colon = _SPACE.match(text, key.end()).end()  # type: ignore[union-attr]
                if text[colon:colon + 1] != ":":
                    raise ValueError(f"expected ':' at {colon}")
                child, pos = _value(text, _SPACE.match(text, colon + 1).end())  # type: ignore[union-attr]
                node.members.append((json.loads(key.group()), key.start(), key.end(), child))  # a string: no comment
            else:
                child, pos = _value(text, pos)
                node.elements.append(child)  # type: ignore[union-attr]
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos:pos + 1] == ",":
                pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
            elif text[pos:pos + 1] != close:
                raise ValueError(f"expected ',' or {close!r} at {pos}")
        node.end = pos + 1
        return node, node.end
    match = _STRING.match(text, pos) if char == '"' else _SCALAR.match(text, pos)
    if match is None:
        raise ValueError(f"expected a value at {pos}")
    node.end = match.end()
    return node, node.end


def indent_unit(text: str) -> int | str:
    """The indentation a file uses: its first indented line's (2 spaces when none is)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            prefix = line[:len(line) - len(stripped)]
            return len(prefix) if prefix.strip(" ") == "" else prefix
    return 2


def _load(text: str) -> object:
    return json.loads(without_comments(text))


def _same(a: object, b: object) -> bool:
    """Equal, and spelled alike: key order and 1 / 1.0 / true count."""
    return json.dumps(a) == json.dumps(b)


class _Editor:
    def __init__(self, text: str, root: Node) -> None:
        self.text = text
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = indent_unit(text)
        self.one_line = "\n" not in text[root.start:root.end] and bool(root.children())  # `{}`: no style yet
        self.key_sep, self.item_sep = ": ", ", "
        self._learn_separators(root)

    def _learn_separators(self, root: Node) -> None:
        """The file's own `key: value` and compact `a, b` spacing, from its first examples."""
        found_key = found_item = False
        stack = [root]
        while stack and not (found_key and found_item):
            node = stack.pop(0)
            if node.members and not found_key:
                _, _, key_end, value = node.members[0]
                between = self.text[key_end:value.start]
                if "\n" not in between and "/" not in between:
                    self.key_sep, found_key = between, True
            spans = node.children()
            if len(spans) > 1 and not found_item:
                between = self.text[spans[0][1]:spans[1][0]]
                if "\n" not in between and "\r" not in between and "/" not in between:
                    self.item_sep, found_item = between, True
            stack += [value for _, _, _, value in node.members or []] + list(node.elements or [])

    def _line_indent(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[start:pos]
        return line[:len(line) - len(line.lstrip(" \t"))]

    def render(self, value: object, base: str | None) -> str:
        """`value` on one line (`base` None) or indented below a line indented by `base`."""
        if base is None:
            return json.dumps(value, ensure_ascii=False, separators=(self.item_sep, self.key_sep))
        text = json.dumps(value, ensure_ascii=False, indent=self.unit, separators=(",", self.key_sep))
        return text.replace("\n", self.newline + base)

    def rewrite(self, node: Node, new: object) -> str:
        """The text of `node` changed to hold `new`."""
        original = self.text[node.start:node.end]
        old = _load(original)
        if _same(old, new):
            return original
        if node.members is not None and isinstance(new, dict):
            pieces = self._object_pieces(node, new)
            if pieces is not None:
                return self._join(node, pieces)
        if node.elements is not None and isinstance(new, list):
            return self._join(node, self._array_pieces(node, new))
        return self.render(new, self._line_indent(node.start) if "\n" in original else None)

    def _object_pieces(self, node: Node, new: dict) -> list[tuple[int | None, object]] | None:
        keys = [key for key, _, _, _ in node.members or []]
        if len(set(keys)) != len(keys) or [k for k in keys if k in new] != [k for k in new if k in keys]:
            return None  # a duplicate key, or members that change order: rewrite the object whole
        pieces: list[tuple[int | None, object]] = []
        for key, value in new.items():
            if key in keys:
                i = keys.index(key)
                _, key_start, _, child = node.members[i]  # type: ignore[index]
                pieces.append((i, self.text[key_start:child.start] + self.rewrite(child, value)))
            else:
                head = json.dumps(key, ensure_ascii=False) + self.key_sep
                pieces.append((None, lambda base, v=value, h=head: h + self.render(v, base)))
        return pieces

    def _array_pieces(self, node: Node, new: list) -> list[tuple[int | None, object]]:
        elements = node.elements or []
        old = [self.text[child.start:child.end] for child in elements]
        spelled = [json.dumps(_load(t)) for t in old]
        matcher = difflib.SequenceMatcher(None, spelled, [json.dumps(v) for v in new], autojunk=False)
        pieces: list[tuple[int | None, object]] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                pieces += [(i, old[i]) for i in range(i1, i2)]
            elif tag == "replace" and i2 - i1 == j2 - j1:  # changed in place (a group losing a handler)
                pieces += [(i, self.rewrite(elements[i], new[j1 + i - i1])) for i in range(i1, i2)]
            else:
                pieces += [(None, lambda base, v=value: self.render(v, base)) for value in new[j1:j2]]
        return pieces

    def _join(self, node: Node, pieces: list[tuple[int | None, object]]) -> str:
        """The container with `pieces` (kept child i with its new text, or None with a renderer): kept
        neighbours keep the separator they had; anything new gets the container's usual one."""
        open_, close = self.text[node.start], self.text[node.end - 1]
        if not pieces:
            return open_ + close
        spans = node.children()
        base = self._line_indent(node.start)
        if spans:
            prefix = self.text[node.start + 1:spans[0][0]]
            suffix = self.text[spans[-1][1]:node.end - 1]
            seps = [self.text[spans[i][1]:spans[i + 1][0]] for i in range(len(spans) - 1)]
        elif self.one_line:
            prefix = suffix = ""
            seps = []
        else:
            prefix, suffix, seps = self.newline + base + self._unit_text(), self.newline + base, []
        plain = [sep for sep in seps if "/" not in sep]  # a separator holding a comment is not copied
        if plain:
            usual = plain[-1]
        elif "\n" in prefix:  # the first child's line: its indentation, never a comment above it
            usual = "," + (prefix if "/" not in prefix else self.newline + prefix.rsplit("\n", 1)[-1])
        else:
            usual = "," + self.item_sep.lstrip(",")
        compact = bool(spans) and all("\n" not in self.text[s:e] for s, e in spans) and any(
            self.text[s:e][-1:] in ("}", "]") for s, e in spans)
        out, previous = [open_, prefix], None
        for n, (index, piece) in enumerate(pieces):
            if n:
                kept = index is not None and previous is not None and index == previous + 1
                out.append(seps[index - 1] if kept else usual)  # type: ignore[operator]
            if callable(piece):
                lead = out[-1]
                line_base = lead[lead.rfind("\n") + 1:] if "\n" in lead else None
                piece = piece(None if compact or line_base is None else line_base)
            out.append(piece)  # type: ignore[arg-type]
            previous = index
        out += [suffix, close]
        return "".join(out)

    def _unit_text(self) -> str:
        return " " * self.unit if isinstance(self.unit, int) else self.unit


def edit(text: str, new: object) -> str | None:
    """`text` (one JSON document) changed to hold `new`, the rest byte for byte; None when that can't be
    done in place (the caller then writes the value whole)."""
    try:
        root = parse(text)
        out = text[:root.start] + _Editor(text, root).rewrite(root, new) + text[root.end:]
        if _same(_load(out), new):
            return out
    except (ValueError, RecursionError):
        pass
    return None
