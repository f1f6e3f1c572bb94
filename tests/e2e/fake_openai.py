#!/usr/bin/env python3
"""A scripted fake of the OpenAI Responses API on 127.0.0.1, for the real Codex CLI.

    fake_openai.py SCRIPT LOG PORT_FILE [MAX_SECONDS]

SCRIPT: a JSON list of Responses output items (`{"type": "function_call", "name": "exec_command", "arguments":
"{\\"cmd\\": …}", "call_id": …}` or `{"type": "message", "role": "assistant", "content": [{"type":
"output_text", "text": …}]}`), one answered per POST /v1/responses, in order ("OK" after the last), as a
server-sent event stream. Every request is appended to LOG as {"method", "path", "body"}. Stops by itself.

Or, for sessions with subagents, {"agents": [{"match": TEXT, "items": [...]}, ...]}: a request is answered
from the first agent whose TEXT is in its first user message (each agent's items in order, "OK" after them).
"{agent_id}" in an item's arguments becomes the id the request's last spawn_agent output named.
"""
import http.server
import json
import re
import sys
import threading

import fake_server


def first_user_text(body: dict) -> str:
    """The first user message that is not context the CLI wrote (<environment_context> and the like)."""
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            text = "".join(part.get("text", "") for part in item.get("content") or [] if isinstance(part, dict))
            if not text.lstrip().startswith("<"):
                return text
    return ""


def last_agent_id(raw: str) -> str:
    found = re.findall(r'\\"agent_id\\":\\"([^"\\]+)', raw)
    return found[-1] if found else ""


def main() -> int:
    script, log, port_file = sys.argv[1:4]
    max_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 300
    with open(script) as fh:
        items = json.load(fh)
    state: dict = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def record(self, body: bytes = b"") -> None:
            with lock, open(log, "a") as fh:
                fh.write(json.dumps({"method": self.command, "path": self.path,
                                     "body": body.decode("utf-8", "replace")}) + "\n")

        def do_GET(self):
            self.record()
            data = json.dumps({"object": "list", "data": [{"id": "gpt-fake", "object": "model"}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            self.record(body)
            queue, key = items, "n"
            if isinstance(items, dict):  # routed: the agent whose text the request's first user message holds
                try:
                    text = first_user_text(json.loads(body))
                except ValueError:
                    text = ""
                agent = next((a for a in items["agents"] if a["match"] in text), {"match": "", "items": []})
                queue, key = agent["items"], "n:" + agent["match"]
            with lock:
                turn, n = state.get(key, 0), state.get("total", 0)
                state[key], state["total"] = turn + 1, n + 1
            item = queue[turn] if turn < len(queue) else {
                "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "OK"}]}
            if "{agent_id}" in item.get("arguments", ""):
                item = dict(item, arguments=item["arguments"].replace("{agent_id}", last_agent_id(body.decode())))
            item = dict({"id": f"item{n}"}, **item)
            usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                     "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
            events = [("response.created", {"type": "response.created", "response": {"id": f"r{n}"}}),
                      ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                                     "item": item}),
                      ("response.completed", {"type": "response.completed",
                                              "response": {"id": f"r{n}", "usage": usage}})]
            data = "".join(f"event: {name}\ndata: {json.dumps(event)}\n\n" for name, event in events).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(data)

    return fake_server.serve(Handler, port_file, max_seconds)


if __name__ == "__main__":
    raise SystemExit(main())
