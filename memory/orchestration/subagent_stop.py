"""The SubagentStop hook / Cursor subagentStop: a subagent claiming a bead must really have finished it.

Blocks (the only hook of ours that does) with every failed check and its fix; after `max_blocks`
attempts per agent it lets the subagent finish with a warning, so no subagent is ever trapped.
An honest `BEAD <ID> BLOCKED: …` / `FAILED: …` report is never blocked; it is commented on the bead.
The report format: memory.orchestration.completion; the checks: memory.orchestration.completion_checks.
"""
from __future__ import annotations

import time

from memory.core import errorlog, paths
from memory.orchestration import completion
from memory.runtimes import hookrun, payload, registration, transcript
from memory.surface import notices

HOOK = "validate_completion"


def handle(ctx: hookrun.Context) -> str | None:
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    if payload.runtime(data) == payload.CURSOR and data.get("status") not in (None, "completed"):
        return None  # Cursor honours a follow-up only for completed subagents
    agent_type = payload.text_field(data, "agent_type") or payload.text_field(data, "subagent_type") or ""
    final = (payload.text_field(data, "last_assistant_message") or payload.text_field(data, "summary")
             or transcript.last_assistant_text(payload.text_field(data, "agent_transcript_path")) or "")
    cwd, project = payload.cwd(data), payload.project_dir(data)
    root = paths.project_root(cwd, project)
    if registration.another_copy_answers(data, ctx.argv, root, HOOK):
        return None  # one copy decides: two would count each stop twice (memory.runtimes.registration)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    config = completion.load_config(ctx.memory_dir)
    # another agent's code block may quote the report's format (documenting the protocol): no claim of its own;
    # a supervisor's report counts wherever it stands
    report = completion.parse_report(final if completion.supervisor(agent_type, config) else completion.unquoted(final))
    _capture_insights(data, final, ctx.memory_dir, report.bead if report else None)
    if not completion.applies(agent_type, report, config):
        return None
    from memory.orchestration import completion_checks  # here: most subagents are not gated

    if not final.strip():
        # Cursor may send no summary and no transcript: what the agent said is unknown, so never "no report line"
        ctx.problems.append("no final message (no summary, last_assistant_message or readable transcript): "
                            "the completion gate could not check it and let it finish")
        _save_handoff(data, report, ctx.memory_dir)
        return None
    agent = _agent_key(data, agent_type)
    if report is not None and report.outcome != completion.COMPLETE:
        # an honest "not done" is accepted as is: recorded on the bead, never blocked
        problem = completion_checks.record_outcome(root, report, float(config["timeout"]))
        if problem:
            errorlog.record(HOOK, problem, ctx.memory_dir)
        completion.update_state(ctx.memory_dir, lambda state: state.pop(agent, None) and 0)
        _save_handoff(data, report, ctx.memory_dir)
        return None
    checks = completion_checks.evaluate(root, report, final, config, ctx.memory_dir)
    loop_count = data.get("loop_count")
    continuing = data.get("stop_hook_active") is True or (isinstance(loop_count, int) and loop_count > 0)
    if not completion_checks.failures(checks):
        completion.update_state(ctx.memory_dir, lambda state: state.pop(agent, None) and 0)
        _save_handoff(data, report, ctx.memory_dir)
        return None
    blocks = completion.update_state(
        ctx.memory_dir, lambda state: completion.record_block(state, agent, continuing, time.time()))
    if blocks > int(config["max_blocks"]):
        failed = ", ".join(c.name for c in completion_checks.failures(checks))
        what = f"BEAD {report.bead} with failing checks ({failed})" if report else "without a completion report"
        claim = f"BEAD {report.bead} COMPLETE" if report else "the report"
        gate = f"{claim} was not verified: the gate let it finish after {config['max_blocks']} blocks (failing: " \
            f"{failed})"
        _save_handoff(data, report, ctx.memory_dir, gate=gate)
        if payload.text_field(data, "agent_id"):  # its parent agent is told with the result (dispatch.py)
            failing = "; ".join(c.line().replace("\n", " ") for c in completion_checks.failures(checks))
            notices.post(ctx.memory_dir, agent, payload.session_id(data),
                         f"memory-hooks: {gate}. Check before merging: {failing}")
        return payload.warning_answer(data, f"memory-hooks: {agent_type} finished {what} "
                                            f"after {config['max_blocks']} blocked attempts.")
    return payload.block_answer(data, completion_checks.block_reason(report, checks))


def _agent_key(data: dict, agent_type: str) -> str:
    """Who the loop guard counts blocks for. Cursor names no subagent (no id; a transcript path only when
    transcripts are on): its `task`, the same on every follow-up, tells two parallel subagents of one type apart."""
    named = payload.text_field(data, "agent_id") or payload.text_field(data, "agent_transcript_path")
    if named:
        return named
    task = payload.text_field(data, "task")
    if task:
        import hashlib

        digest = hashlib.sha1(task.encode("utf-8", "replace")).hexdigest()[:12]
        return f"{payload.session_id(data)}:{agent_type}:{digest}"
    return f"{payload.session_id(data)}:{agent_type}"


def _capture_insights(data: dict, final: str, memory_dir: str, bead: str | None) -> None:
    """The subagent's marked lines become entries (memory.capture.reply_capture), tagged with the bead its report
    names; never changes the gate's decision."""
    from memory.capture import reply_capture

    try:
        reply_capture.capture(data, final, memory_dir, bead)
    except Exception as exc:  # noqa: BLE001 - the gate must decide whatever happened here
        errorlog.record(HOOK, f"reply capture: {type(exc).__name__}: {exc}", memory_dir)


def _save_handoff(data: dict, report: completion.Report | None, memory_dir: str, gate: str | None = None) -> None:
    """A supervisor's handoff, keyed by its bead (memory.runtimes.handoff), when the gate lets it finish: a blocked
    stop is no stop (the subagent is sent back to work), and its claim must never read as the bead's outcome.
    `gate`: why the claim stands unverified. Never changes the gate's decision."""
    from memory.capture import edit
    from memory.runtimes import handoff

    try:
        bead = report.bead if report else edit.bead_in_progress(payload.cwd(data) or ".")
        record = handoff.build(data, memory_dir, "SubagentStop", bead=bead or None)
        if gate:
            record["gate"] = gate
        handoff.save(memory_dir, record)
    except Exception as exc:  # noqa: BLE001 - the gate must decide whatever happened here
        errorlog.record(HOOK, f"handoff: {type(exc).__name__}: {exc}", memory_dir)


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
