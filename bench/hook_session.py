"""Run the real hook files as Claude Code does, in throwaway git repositories, and judge what they inject.

Shared by bench/relevance_view.py (session start + prompt hook: visible recall, map coverage) and
bench/relevance_actions.py (the action hook on file and error events). Stdlib only.

    repo = make_repo(workdir, "uv", entries)                 # git init + .beads/memory/knowledge.jsonl
    text = run_hook(SESSION_START, session_start_payload(repo, "s1"), repo)
    visible(entry, text), in_full(entry, text)

The knowledge goes where install.sh puts it (`.beads/memory/knowledge.jsonl`, newest line last as captures
append); each hook is one `python3 hooks/<name>.py` process fed the JSON payload on stdin, with the
environment a Claude Code hook gets (CLAUDE_PROJECT_DIR) and no other runtime's or memory-hooks' variables.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "hooks"
SESSION_START = HOOKS / "session_start.py"
PROMPT_RECALL = HOOKS / "prompt_recall.py"
ACTION_CONTEXT = HOOKS / "action_context.py"
VISIBLE_CHARS = 40  # an entry is visible when this much of its start stands in the injected text
FULL_CHARS = 200  # the hooks never cut an entry below this (prompt_context.MIN_ENTRY_CHARS): a cut there is "in full"
TIMEOUT = 60
RUNTIME_ENV_PREFIXES = ("CLAUDE", "CURSOR", "GEMINI", "CODEX", "MEMORY_HOOKS")  # a hook sees only its own runtime's


def flat(text: str) -> str:
    """Text on one line, whitespace runs folded to one space (how the hooks render an entry)."""
    return " ".join(str(text).split())


def visible(entry: dict, injected: str) -> bool:
    """The entry's first VISIBLE_CHARS characters stand in the injected text (both flattened)."""
    head = flat(entry.get("content", ""))[:VISIBLE_CHARS].rstrip()
    return bool(head) and head in flat(injected)


def in_full(entry: dict, injected: str) -> bool:
    """The whole entry stands in the injected text, or its first FULL_CHARS characters when the hook cut it."""
    content, text = flat(entry.get("content", "")), flat(injected)
    return bool(content) and (content in text or (len(content) > FULL_CHARS and content[:FULL_CHARS] in text))


def make_repo(workdir: str | Path, name: str, entries: list[dict], config: dict | None = None) -> str:
    """A fresh git repository `workdir/name` holding `entries` as its committed knowledge (oldest first)."""
    repo = Path(workdir) / name
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    ordered = sorted(entries, key=lambda e: e.get("ts", 0))
    (memory / "knowledge.jsonl").write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in ordered),
                                            encoding="utf-8")
    if config is not None:
        (memory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return str(repo)


def hook_env(repo: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(RUNTIME_ENV_PREFIXES)}
    env["CLAUDE_PROJECT_DIR"] = repo
    return env


def run_hook(hook: str | Path, payload: dict, repo: str) -> str:
    """The context one hook process injected for `payload` ('' for none): Claude Code's
    hookSpecificOutput.additionalContext, or plain stdout that is not JSON."""
    proc = subprocess.run([sys.executable, str(Path(hook).resolve())], input=json.dumps(payload),
                          capture_output=True, text=True, cwd=repo, env=hook_env(repo), timeout=TIMEOUT)
    if proc.returncode != 0:  # hooks fail open (exit 0): anything else is a crash the figures must not hide
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        print(f"warning: {Path(hook).name} exited {proc.returncode} on {payload.get('hook_event_name')}: {tail[0]}",
              file=sys.stderr)
    return injected_text(proc.stdout)


def injected_text(stdout: str) -> str:
    out = stdout.strip()
    if not out:
        return ""
    if not out.startswith("{"):
        return out
    answer = json.loads(out)
    specific = answer.get("hookSpecificOutput") if isinstance(answer, dict) else None
    if isinstance(specific, dict):
        return str(specific.get("additionalContext") or "")
    return str(answer.get("additional_context") or "") if isinstance(answer, dict) else ""


def _transcript(repo: str, session: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in repo)
    return f"{Path.home()}/.claude/projects/{slug}/{session}.jsonl"


def session_start_payload(repo: str, session: str) -> dict:
    return {"session_id": session, "transcript_path": _transcript(repo, session), "cwd": repo,
            "hook_event_name": "SessionStart", "source": "startup"}


def prompt_payload(repo: str, session: str, prompt: str) -> dict:
    return {"session_id": session, "transcript_path": _transcript(repo, session), "cwd": repo,
            "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt}


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")
