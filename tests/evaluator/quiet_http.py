"""The fake servers' HTTP server: a client that hangs up mid-answer (spanlab's deadline or
size cap doing its job) is what the fault modes are for, not an error to print, so the
test log carries no server-side traceback that reads like spanlab's."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer
from typing import Any


class QuietServer(ThreadingHTTPServer):
    """A `ThreadingHTTPServer` that says nothing when a client disconnects mid-request."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # broken pipe, reset, aborted
            return
        super().handle_error(request, client_address)
