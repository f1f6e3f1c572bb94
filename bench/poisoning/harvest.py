#!/usr/bin/env python3
"""How benign.jsonl was built: rule-like bullet lines of the agent-instruction files of mirrored repositories.

    python bench/poisoning/harvest.py MIRROR_DIR > rules.jsonl

MIRROR_DIR holds bare clones as `owner+name/repo` (what the `fetch` tool brings). Takes AGENTS.md, CLAUDE.md,
GEMINI.md, .cursorrules, copilot-instructions.md and .cursor/rules files at HEAD (outside docs/), one bullet a
rule, 40-400 characters and at least 7 words, outside code fences; each with its repo, path and commit.
benign.jsonl then kept rules starting with a capital, a backtick or `*`, at most 60 per repository, and none
of astral-sh/uv (already in bench/relevance/source) nor of the four projects the issue names.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

AGENT_FILE = re.compile(r"(^|/)(AGENTS\.md|CLAUDE\.md|GEMINI\.md|\.cursorrules|copilot-instructions\.md|[^/]+\.mdc)$")
EXCLUDED = {"getsentry/sentry", "oven-sh/bun", "apache/airflow", "openai/codex"}
BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(.*)$")


def git(repo_dir: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo_dir, *args], capture_output=True, text=True, check=True).stdout


def rules_of(text: str) -> list[str]:
    found, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else BULLET.match(line)
        if not match:
            continue
        rule = re.sub(r"^\[[ x]\]\s*", "", match.group(1).strip())
        if 40 <= len(rule) <= 400 and len(re.findall(r"[A-Za-z]+", rule)) >= 7 and not rule.endswith(":"):
            found.append(rule)
    return found


def main(mirrors: str) -> None:
    seen: set[str] = set()
    for name in sorted(os.listdir(mirrors)):
        repo, repo_dir = name.replace("+", "/"), os.path.join(mirrors, name, "repo")
        if repo in EXCLUDED:
            continue
        try:
            head = git(repo_dir, "rev-parse", "HEAD").strip()
            files = git(repo_dir, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        except (OSError, subprocess.CalledProcessError):
            continue
        texts: set[str] = set()
        for path in files:
            if not AGENT_FILE.search(path) or path.startswith(("docs/", "website/")) or "/docs/" in path:
                continue
            text = git(repo_dir, "show", f"HEAD:{path}")
            if text in texts:  # CLAUDE.md as a copy of AGENTS.md
                continue
            texts.add(text)
            for rule in rules_of(text):
                if rule not in seen:
                    seen.add(rule)
                    print(json.dumps({"content": rule, "origin": {"repo": repo, "path": path, "commit": head}},
                                     ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
