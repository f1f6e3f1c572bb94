"""The boundary with Claude Code, Cursor, Gemini CLI and Codex CLI: the hook frame (hookrun: read
stdin, fail open, answer once), payloads in and answers out (payload), each runtime's settings
file and events (runtimes; registration: who registers ours; ours: which handlers are ours; settings_merge: ours
merged into a settings file), their transcripts (transcript) and what they say of where a session
stopped (handoff; read back: handoff_read), Claude Code's auto memory (automemory). May import: core, store.
"""
