"""A planted OpenAI-compatible chat-completions server on 127.0.0.1 (for `lm_eval --model
local-chat-completions`): `respond(request body) -> text` writes each answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve_chat(respond: Callable[[dict], str]) -> ThreadingHTTPServer:
    """Starts the server in a daemon thread; its port is `server.server_address[1]`, stop it with `shutdown()`."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            payload = json.dumps(
                {
                    "id": "planted",
                    "object": "chat.completion",
                    "model": "planted",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": respond(body)},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
