"""Notes for an orchestrating agent that one hook decides and a later hook delivers: the completion gate's loop
guard let a subagent finish with its claim unverified (memory.orchestration.subagent_stop), and the parent agent,
which goes on to merge what its subagents report, must hear it (the user's systemMessage never reached it).

A foreground subagent's result reaches the parent with PostToolUse on its Agent call (memory.orchestration.dispatch
takes the note by the subagent's id); a background one (Claude Code's default since 2.1.198) returns at launch,
and its report reaches the parent later as a UserPromptSubmit (memory.surface.prompt_context takes every note of
the session). Whichever comes first delivers it, once. Kept beside the loop guard's counts in
layout.COMPLETION_STATE (machine-local), under the subagent's id.
"""
from __future__ import annotations

from memory.core import layout, state


def post(memory_dir: str, agent: str, session: str | None, text: str) -> None:
    """Keep `text` for the parent of subagent `agent` in `session`."""
    def change(found: dict) -> int:
        found.setdefault(agent, {}).update(released=text, session=session)
        return 0

    state.update(memory_dir, layout.COMPLETION_STATE, change)


def take(memory_dir: str, agent: str) -> str:
    """The note kept for `agent`'s parent, once; "" when there is none."""
    found = state.read(memory_dir, layout.COMPLETION_STATE).get(agent)
    if not isinstance(found, dict) or not found.get("released"):
        return ""  # most subagents: one read, no lock
    return str(state.update(memory_dir, layout.COMPLETION_STATE,
                            lambda current: (current.get(agent) or {}).pop("released", "")))


def take_session(memory_dir: str, session: str | None) -> list[str]:
    """Every note kept for the subagents of `session`, once (in the order of their ids)."""
    if not session:
        return []

    def mine(current: dict) -> list[str]:
        return [agent for agent, found in current.items() if isinstance(found, dict) and found.get("released")
                and found.get("session") == session]

    if not mine(state.read(memory_dir, layout.COMPLETION_STATE)):
        return []  # every prompt: one small read, no lock

    def change(current: dict) -> list[str]:
        return [str(current[agent].pop("released")) for agent in sorted(mine(current))]

    return state.update(memory_dir, layout.COMPLETION_STATE, change)
