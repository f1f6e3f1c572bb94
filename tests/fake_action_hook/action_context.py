#!/usr/bin/env python3
"""A stand-in action hook for tests/project/test_relevance_actions.py (the real hooks/action_context.py is built
elsewhere): on PreToolUse it injects the entries whose text names the file's base name, on PostToolUseFailure
the entries with a `backticked` span that occurs in the failed command or its error. Nothing else."""
import json
import os
import re
import sys


def main() -> int:
    payload = json.loads(sys.stdin.read() or "{}")
    project = os.environ.get("CLAUDE_PROJECT_DIR", payload.get("cwd", "."))
    with open(os.path.join(project, ".beads", "memory", "knowledge.jsonl"), encoding="utf-8") as fh:
        entries = [json.loads(line) for line in fh if line.strip()]
    event, tool_input = payload.get("hook_event_name"), payload.get("tool_input") or {}
    if event == "PreToolUse":
        name = os.path.basename(str(tool_input.get("file_path", "")))
        chosen = [e for e in entries if name and name in e["content"]]
    elif event == "PostToolUseFailure":
        text = str(tool_input.get("command", "")) + "\n" + str(payload.get("error", ""))
        chosen = [e for e in entries if any(span in text for span in re.findall(r"`([^`]+)`", e["content"]))]
    else:
        chosen = []
    if chosen:
        context = "## Knowledge for this action\n" + "\n".join(f"  [LEARN] {e['content']}" for e in chosen)
        print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
