"""A planted OpenAI-compatible chat-completions server on 127.0.0.1 (for `lm_eval --model
local-chat-completions`): `respond(request body) -> text` writes each answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support.likert_outputs import cut_at_stop


def serve_chat(
    respond: Callable[[dict], str], apply_stop: bool = False, refuse_stop: bool = False
) -> ThreadingHTTPServer:
    """Starts the server in a daemon thread; its port is `server.server_address[1]`, stop it with
    `shutdown()`. `apply_stop`: cut each answer at the request's stop sequences, as inference
    servers do; `refuse_stop`: answer 400 to a request with stop sequences, as hosted reasoning APIs
    do. Every request body is kept in `server.requests`."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                server.requests.append(body)
            if refuse_stop and body.get("stop"):
                self._send(400, {"error": {"message": "'stop' is not supported with this model"}})
                return
            text = respond(body)
            if apply_stop:
                text = cut_at_stop(text, body.get("stop") or [])
            self._send(
                200,
                {
                    "id": "planted",
                    "object": "chat.completion",
                    "model": "planted",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                },
            )

        def _send(self, status: int, body: dict):
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    lock = threading.Lock()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.requests = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
