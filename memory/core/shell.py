"""A small POSIX sh lexer: finds the simple commands of a command line and their literal words.

Not an interpreter: nothing is expanded except what can be known without running anything
(quotes, escapes, here-documents, and `$(cat <<EOF ... EOF)` / `$(echo ...)` substitutions).
Anything else (`$VAR`, other substitutions) stays as its source text.
"""
from __future__ import annotations

_OPERATOR_CHARS = ";&|"
_BLANK = " \t\r"
_ANSI_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b",
                   "E": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


class Command:
    """One simple command: its words after quote removal, and what its stdin would be."""

    __slots__ = ("words", "stdin_text", "stdin_file", "pipe_from")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.stdin_text: str | None = None  # here-document or here-string body
        self.stdin_file: str | None = None  # `< file`
        self.pipe_from: Command | None = None  # the command piped into this one

    def __repr__(self) -> str:
        return f"Command({self.words!r}, stdin_text={self.stdin_text!r})"


class _Heredoc:
    __slots__ = ("command", "delimiter", "strip_tabs")

    def __init__(self, command: Command, delimiter: str, strip_tabs: bool) -> None:
        self.command, self.delimiter, self.strip_tabs = command, delimiter, strip_tabs


class _Level:
    """One nesting level of a command list being parsed: its commands so far, the command and word
    being read, and whether the next command reads the previous one's output."""

    def __init__(self, found: list[Command]) -> None:
        self.commands: list[Command] = []
        self.cmd = Command()
        self.word: list[str] | None = None
        self.pipe_next = False
        self._found = found  # the lexer's list of every simple command

    def end_word(self) -> None:
        if self.word is not None:
            self.cmd.words.append("".join(self.word))
            self.word = None

    def end_command(self, piped: bool) -> None:
        self.end_word()
        cmd = self.cmd
        if cmd.words or cmd.stdin_text is not None:
            if self.pipe_next and self.commands:
                cmd.pipe_from = self.commands[-1]
            self.commands.append(cmd)
            self._found.append(cmd)
        self.cmd = Command()
        self.pipe_next = piped


class _Lexer:
    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0
        self.found: list[Command] = []  # every simple command, nested ones included
        self.pending: list[_Heredoc] = []

    # -- command lists -------------------------------------------------------------------------
    def parse_list(self, closer: str | None = None) -> list[Command]:
        """Parse commands until `closer` (")" or end of input); return the commands at this level."""
        src, n = self.src, len(self.src)
        level = _Level(self.found)
        while self.i < n:
            c = src[self.i]
            if closer and c == closer:
                self.i += 1
                level.end_command(False)
                return level.commands
            if c in _BLANK:
                level.end_word()
                self.i += 1
            elif c == "\\" and src.startswith("\\\n", self.i):
                self.i += 2
            elif c == "\n":
                level.end_command(False)
                self.i += 1
                self._read_heredoc_bodies()
            elif c == "#" and level.word is None:
                while self.i < n and src[self.i] != "\n":
                    self.i += 1
            elif c in "()":
                # an operator even right after a word: `(cd sub && bd comment X "…")` ends the word
                level.end_command(False)  # subshells and groups only separate commands here
                self.i += 1
            elif c == "&" and src.startswith("&>", self.i):
                level.end_word()
                self.i += 2 + src.startswith("&>>", self.i)
                self._read_redirect_target()
            elif c in _OPERATOR_CHARS:
                level.end_word()
                op = self._operator()
                level.end_command(op in ("|", "|&"))
            elif c in "<>":
                if level.word is not None and "".join(level.word).isdigit():
                    level.word = None  # an fd number such as the 2 in 2>&1
                level.end_word()
                self._redirect(level.cmd)
            else:
                if level.word is None:
                    level.word = []
                self._word_part(level.word)
        level.end_command(False)
        return level.commands

    def _operator(self) -> str:
        src = self.src
        for op in ("&&", "||", ";;", "|&", "&", "|", ";"):
            if src.startswith(op, self.i):
                self.i += len(op)
                return op
        self.i += 1
        return src[self.i - 1]

    def _redirect(self, cmd: Command) -> None:
        src = self.src
        for op in ("<<<", "<<-", "<<", "<&", "<>", ">>", ">&", ">|", "<", ">"):
            if src.startswith(op, self.i):
                self.i += len(op)
                break
        else:  # pragma: no cover - the caller only calls on < or >
            op = src[self.i]
            self.i += 1
        target, quoted = self._read_redirect_target()
        if target is None:
            return
        if op in ("<<", "<<-"):
            self.pending.append(_Heredoc(cmd, target, op == "<<-"))
            cmd.stdin_text = ""  # filled at the next newline
        elif op == "<<<":
            cmd.stdin_text = target + "\n"
        elif op == "<":
            cmd.stdin_file = target

    def _read_redirect_target(self) -> tuple[str | None, bool]:
        src, n = self.src, len(self.src)
        while self.i < n and src[self.i] in _BLANK:
            self.i += 1
        if self.i >= n or src[self.i] in "\n;&|()<>":
            return None, False
        quoted = src[self.i] in "'\"\\"
        word: list[str] = []
        while self.i < n and src[self.i] not in _BLANK + "\n;&|()<>":
            self._word_part(word)
        return "".join(word), quoted

    def _read_heredoc_bodies(self) -> None:
        src, n = self.src, len(self.src)
        while self.pending:
            doc = self.pending.pop(0)
            lines: list[str] = []
            while self.i < n:
                end = src.find("\n", self.i)
                line = src[self.i:] if end < 0 else src[self.i:end]
                self.i = n if end < 0 else end + 1
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delimiter:
                    break
                lines.append(line)
            doc.command.stdin_text = "".join(line + "\n" for line in lines)

    # -- words ---------------------------------------------------------------------------------
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
        elif c == "$" and src.startswith("$((", self.i):
            out.append(self._balanced("$((", "))"))
        elif c == "$" and src.startswith("$(", self.i):
            out.append(self._substitution())
        elif c == "$" and src.startswith("${", self.i):
            out.append(self._balanced("${", "}"))
        elif c == "`":
            out.append(self._backticks())
        else:
            out.append(c)
            self.i += 1

    def _double_quoted(self, out: list[str]) -> None:
        src, n = self.src, len(self.src)
        while self.i < n:
            c = src[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and src[self.i + 1] in '$`"\\\n':
                if src[self.i + 1] != "\n":
                    out.append(src[self.i + 1])
                self.i += 2
            elif c == "$" and src.startswith("$((", self.i):
                out.append(self._balanced("$((", "))"))
            elif c == "$" and src.startswith("$(", self.i):
                out.append(self._substitution())
            elif c == "`":
                out.append(self._backticks())
            else:
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
                out.append(_ANSI_C_ESCAPES.get(nxt, "\\" + nxt))
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

    def _substitution(self) -> str:
        start = self.i
        self.i += 2
        inner = self.parse_list(closer=")")
        return _substitution_value(inner, self.src[start:self.i])

    def _backticks(self) -> str:
        src = self.src
        start = self.i
        j = self.i + 1
        body: list[str] = []
        while j < len(src) and src[j] != "`":
            if src[j] == "\\" and j + 1 < len(src):
                body.append(src[j + 1])
                j += 2
                continue
            body.append(src[j])
            j += 1
        self.i = j + 1
        nested = _Lexer("".join(body))
        inner = nested.parse_list()
        self.found.extend(nested.found)
        return _substitution_value(inner, src[start:self.i])


def _substitution_value(commands: list[Command], source_text: str) -> str:
    """The output of `$(...)` when it is knowable without running anything, else its source text."""
    if len(commands) == 1:
        output = command_output(commands[0])
        if output is not None:
            return output.rstrip("\n")
    return source_text


def command_output(cmd: Command) -> str | None:
    """What `cat` (of its stdin), `echo` or a plain `printf` would print; None when unknowable."""
    if not cmd.words:
        return None
    name, args = cmd.words[0], cmd.words[1:]
    if name == "cat" and args in ([], ["-"]) and cmd.stdin_text is not None:
        return cmd.stdin_text
    if name == "cat" and args in ([], ["-"]) and cmd.pipe_from is not None:
        return command_output(cmd.pipe_from)
    if name == "echo":
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            args = args[1:]
        return " ".join(args) + "\n"
    if name == "printf" and args:
        fmt, rest = args[0], args[1:]
        if fmt in ("%s", "%s\\n", "%s\n"):
            return "".join(rest) + ("\n" if fmt != "%s" else "")
        if not rest and "%" not in fmt:
            return fmt.replace("\\n", "\n").replace("\\t", "\t")
    return None


def parse(src: str) -> list[Command]:
    """Every simple command in `src`, in source order, including those inside substitutions."""
    lexer = _Lexer(src)
    lexer.parse_list()
    return lexer.found
