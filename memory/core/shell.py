"""A small POSIX sh lexer: finds the simple commands of a command line and their literal words.

Not an interpreter: nothing is expanded except what can be known without running anything
(quotes, escapes, here-documents, and `$(cat <<EOF ... EOF)` / `$(echo ...)` substitutions).
Anything else (`$VAR`, other substitutions) stays as its source text. The words (quotes, escapes, `$((…))`,
`${…}`): memory.core.shell_words; here the command lists, redirections, here-documents and substitutions.
"""
from __future__ import annotations

from memory.core.shell_words import BLANK, WordReader

_OPERATOR_CHARS = ";&|"


class Command:
    """One simple command: its words after quote removal, and what its stdin would be."""

    __slots__ = ("words", "stdin_text", "stdin_file", "pipe_from", "after", "depth")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.stdin_text: str | None = None  # here-document or here-string body
        self.stdin_file: str | None = None  # `< file`
        self.pipe_from: Command | None = None  # the command piped into this one
        self.after = ""  # the operator before it on its level: `&&`, `||`, `;`, `|`, `(`, `)` ("": the first)
        self.depth = 0  # how deep in subshells, groups and substitutions it stands (a `cd` there ends with them)

    def __repr__(self) -> str:
        return f"Command({self.words!r}, stdin_text={self.stdin_text!r})"


class _Heredoc:
    __slots__ = ("command", "delimiter", "strip_tabs")

    def __init__(self, command: Command, delimiter: str, strip_tabs: bool) -> None:
        self.command, self.delimiter, self.strip_tabs = command, delimiter, strip_tabs


class _Level:
    """One nesting level of a command list being parsed: its commands so far, the command and word
    being read, and whether the next command reads the previous one's output."""

    def __init__(self, found: list[Command], depth: int = 0) -> None:
        self.commands: list[Command] = []
        self.cmd = Command()
        self.word: list[str] | None = None
        self.pipe_next = False
        self.next_after = ""
        self.depth = depth
        self._found = found  # the lexer's list of every simple command

    def end_word(self) -> None:
        if self.word is not None:
            self.cmd.words.append("".join(self.word))
            self.word = None

    def end_command(self, piped: bool, op: str = ";") -> None:
        self.end_word()
        cmd = self.cmd
        if cmd.words or cmd.stdin_text is not None:
            if self.pipe_next and self.commands:
                cmd.pipe_from = self.commands[-1]
            cmd.after, cmd.depth = self.next_after, self.depth
            self.commands.append(cmd)
            self._found.append(cmd)
        self.cmd = Command()
        self.pipe_next = piped
        self.next_after = op


class _Lexer(WordReader):
    """Command lists, operators, redirections and here-documents; the words themselves: WordReader."""

    def __init__(self, src: str, depth: int = 0) -> None:
        self.src = src
        self.i = 0
        self.found: list[Command] = []  # every simple command, nested ones included
        self.pending: list[_Heredoc] = []
        self.depth = depth

    # -- command lists -------------------------------------------------------------------------
    def parse_list(self, closer: str | None = None) -> list[Command]:
        """Parse commands until `closer` (")" or end of input); return the commands at this level."""
        src, n = self.src, len(self.src)
        level = _Level(self.found, self.depth)
        while self.i < n:
            c = src[self.i]
            if closer and c == closer:
                self.i += 1
                level.end_command(False)
                return level.commands
            if c in BLANK:
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
                level.end_command(False, c)  # subshells and groups only separate commands here
                level.depth += 1 if c == "(" else -1 if level.depth > self.depth else 0
                self.i += 1
            elif c == "&" and src.startswith("&>", self.i):
                level.end_word()
                self.i += 2 + src.startswith("&>>", self.i)
                self._read_redirect_target()
            elif c in _OPERATOR_CHARS:
                level.end_word()
                op = self._operator()
                level.end_command(op in ("|", "|&"), op)
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
        while self.i < n and src[self.i] in BLANK:
            self.i += 1
        if self.i >= n or src[self.i] in "\n;&|()<>":
            return None, False
        quoted = src[self.i] in "'\"\\"
        word: list[str] = []
        while self.i < n and src[self.i] not in BLANK + "\n;&|()<>":
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

    def _substitution(self) -> str:
        start = self.i
        self.i += 2
        self.depth += 1
        try:
            inner = self.parse_list(closer=")")
        finally:
            self.depth -= 1
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
        nested = _Lexer("".join(body), self.depth + 1)
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
