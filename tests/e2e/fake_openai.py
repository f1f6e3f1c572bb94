#!/usr/bin/env python3
"""A scripted fake of the OpenAI Responses API on 127.0.0.1, for the real Codex CLI.

    fake_openai.py SCRIPT LOG PORT_FILE [MAX_SECONDS]

SCRIPT: a JSON list of Responses output items (`{"type": "function_call", "name": "exec_command", "arguments":
"{\\"cmd\\": …}", "call_id": …}` or `{"type": "message", "role": "assistant", "content": [{"type":
"output_text", "text": …}]}`), one answered per POST /v1/responses, in order ("OK" after the last), as a
server-sent event stream. Every request is appended to LOG as {"method", "path", "body"}. Stops by itself.
"""
import http.server
import json
import sys
import threading


def main() -> int:
    script, log, port_file = sys.argv[1:4]
    max_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 300
    with open(script) as fh:
        items = json.load(fh)
    state = {"n": 0}
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
            with lock:
                n = state["n"]
                state["n"] += 1
            item = items[n] if n < len(items) else {
                "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "OK"}]}
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

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file, "w") as fh:
        fh.write(str(server.server_address[1]))
    threading.Timer(max_seconds, server.shutdown).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
