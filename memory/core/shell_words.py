"""The words of a POSIX sh command line (memory.core.shell lexes the commands): quote removal (single,
double, `$'…'` ANSI-C), backslash escapes, and `$((…))` / `${…}` kept whole as written. What a `$(…)` or
backtick substitution stands for is the lexer's: it knows the commands inside."""
from __future__ import annotations

BLANK = " \t\r"
LONG_RUN = 4096  # past this much text left, double-quoted runs are found with a regex (small commands need no `re`)
ANSI_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b",
                  "E": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


class WordReader:
    """Reads the part of a word at `self.i` of `self.src`, advancing `self.i`; the lexer subclasses it and
    gives the substitutions' values."""

    src: str
    i: int

    def _substitution(self) -> str:
        """The value of the `$(…)` at `self.i`."""
        raise NotImplementedError

    def _backticks(self) -> str:
        """The value of the backtick substitution at `self.i`."""
        raise NotImplementedError

    def _word_part(self, out: list[str]) -> None:
        src, n = self.src, len(self.src)
        c = src[self.i]
        if c == "'":
            end = src.find("'", self.i + 1)
            end = n if end < 0 else end
            out.append(src[self.i + 1:end])
            self.i = end + 1
        elif c == '"':
            self.i += 1
            self._double_quoted(out)
        elif c == "\\":
            if self.i + 1 < n:
                out.append(src[self.i + 1])
            self.i += 2
        elif c == "$" and src.startswith("$'", self.i):
            self.i += 2
            self._ansi_c(out)
        elif c == "$" and src.startswith("${", self.i):
            out.append(self._balanced("${", "}"))
        elif not self._expansion(c, out):
            out.append(c)
            self.i += 1

    def _expansion(self, c: str, out: list[str]) -> bool:
        """A `$((…))`, `$(…)` or backtick substitution starting at `self.i`, read into `out`; False when none does
        (the same inside double quotes and out)."""
        if c == "$" and self.src.startswith("$((", self.i):
            out.append(self._balanced("$((", "))"))
        elif c == "$" and self.src.startswith("$(", self.i):
            out.append(self._substitution())
        elif c == "`":
            out.append(self._backticks())
        else:
            return False
        return True

    def _double_quoted(self, out: list[str]) -> None:
        src, n = self.src, len(self.src)
        special = None
        while self.i < n:
            if n - self.i > LONG_RUN:  # a long text: its plain runs taken whole (a character at a time, a 20 MB
                if special is None:  # `bd comment "…"` took 10 s, near the hooks' timeout)
                    import re

                    special = re.compile(r'["\\$`]')
                found = special.search(src, self.i)
                stop = found.start() if found else n
                if stop > self.i:
                    out.append(src[self.i:stop])
                    self.i = stop
                    continue
            c = src[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and src[self.i + 1] in '$`"\\\n':
                if src[self.i + 1] != "\n":
                    out.append(src[self.i + 1])
                self.i += 2
            elif not self._expansion(c, out):
                out.append(c)
                self.i += 1

    def _ansi_c(self, out: list[str]) -> None:
        src, n = self.src, len(self.src)
        while self.i < n:
            c = src[self.i]
            if c == "'":
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n:
                nxt = src[self.i + 1]
                if nxt == "x":
                    digits = ""
                    j = self.i + 2
                    while j < n and len(digits) < 2 and src[j] in "0123456789abcdefABCDEF":
                        digits += src[j]
                        j += 1
                    out.append(chr(int(digits, 16)) if digits else "\\x")
                    self.i = j
                    continue
                out.append(ANSI_C_ESCAPES.get(nxt, "\\" + nxt))
                self.i += 2
            else:
                out.append(c)
                self.i += 1

    def _balanced(self, opener: str, closer: str) -> str:
        src = self.src
        start = self.i
        depth = 0
        while self.i < len(src):
            if src.startswith(opener, self.i):
                depth += 1
                self.i += len(opener)
            elif src.startswith(closer, self.i):
                depth -= 1
                self.i += len(closer)
                if depth == 0:
                    break
            else:
                self.i += 1
        return src[start:self.i]
