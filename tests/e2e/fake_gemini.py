#!/usr/bin/env python3
"""A scripted fake of the Gemini API (generativelanguage v1beta) on 127.0.0.1, for the real Gemini CLI.

    fake_gemini.py SCRIPT LOG PORT_FILE [MAX_SECONDS]

SCRIPT: a JSON list of turns, each a list of Gemini `parts` (`{"text": …}` or `{"functionCall": {…}}`),
answered in order to the agent's streamGenerateContent calls. The CLI's side calls are answered so it goes
on: JSON-schema calls (task routing, next speaker) with a fitting object, countTokens with a number, any
other generateContent with "OK". Every request is appended to LOG as {"path", "body"}. Stops by itself.
"""
import http.server
import json
import sys
import threading

import fake_server


def main() -> int:
    script, log, port_file = sys.argv[1:4]
    max_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 300
    with open(script) as fh:
        turns = json.load(fh)
    state = {"turn": 0}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def reply(self, obj, sse=False):
            data = (f"data: {json.dumps(obj)}\r\n\r\n" if sse else json.dumps(obj)).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream" if sse else "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            with lock, open(log, "a") as fh:
                fh.write(json.dumps({"path": self.path, "body": body.decode("utf-8", "replace")}) + "\n")
            if ":countTokens" in self.path:
                return self.reply({"totalTokens": 10})
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                request = {}
            config = request.get("generationConfig") or {}
            if config.get("responseMimeType") == "application/json":
                schema = json.dumps(config.get("responseJsonSchema") or config.get("responseSchema") or {})
                answer = ({"complexity_reasoning": "simple", "complexity_score": 10} if "complexity" in schema
                          else {"reasoning": "done", "next_speaker": "user"})
                parts = [{"text": json.dumps(answer)}]
            elif "streamGenerateContent" in self.path:
                with lock:
                    at = state["turn"]
                    state["turn"] += 1
                parts = turns[at] if at < len(turns) else [{"text": "OK"}]
            else:
                parts = [{"text": "OK"}]
            self.reply({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                        "index": 0}],
                        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}},
                       sse="alt=sse" in self.path)

        do_GET = do_POST

    return fake_server.serve(Handler, port_file, max_seconds)


if __name__ == "__main__":
    raise SystemExit(main())
