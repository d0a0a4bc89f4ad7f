"""A program in a real pseudo-terminal, read as a person sees it: the time from a command
or a key to the moment the bytes that draw a given text have been written.

Escape sequences are dropped before matching, so a pattern matches drawn text; each wait
looks only at what was written after the key was pressed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path
from types import TracebackType

ESCAPES = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"
)
"""CSI, OSC and two-byte escape sequences."""
TIMEOUT = 60.0
"""Seconds a wait may take before the benchmark gives up."""


class Terminal:
    """Runs `argv` at `size` in a pty; `wait_for` and `press` return milliseconds."""

    def __init__(
        self, argv: list[str], *, cwd: Path, root: Path, size: tuple[int, int] = (80, 24),
        env: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        self.argv, self.cwd, self.size = argv, cwd, size
        self.env = {**os.environ, "PYTHONPATH": str(root), "TERM": "xterm-256color",
                    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "COLUMNS": str(size[0]),
                    "LINES": str(size[1]), **(env or {})}  # fmt: skip
        self.seen = b""
        """Drawn text so far (escape sequences removed)."""
        self._raw = b""
        self._mark = 0

    def __enter__(self) -> Terminal:
        master, slave = pty.openpty()
        cols, rows = self.size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.start = time.perf_counter()
        self.child = subprocess.Popen(
            self.argv, cwd=self.cwd, env=self.env, stdin=slave, stdout=slave, stderr=slave,
            start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.master = master
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        os.write(self.master, b"\x11")  # ctrl+q
        try:
            self.child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
        os.close(self.master)

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            return False
        self._raw += chunk
        self.seen = ESCAPES.sub(b"", self._raw)
        return True

    def wait_for(self, pattern: str, since: float | None = None) -> float:
        """Ms from `since` (the start) until `pattern` is drawn after the last mark."""
        began = self.start if since is None else since
        wanted = re.compile(pattern.encode())
        while not wanted.search(self.seen, self._mark):
            if time.perf_counter() - began > TIMEOUT:
                tail = self.seen[-400:].decode(errors="replace")
                raise TimeoutError(f"{pattern!r} never drawn; last text: {tail!r}")
            self._read(0.5)
        return (time.perf_counter() - began) * 1000

    def press(self, keys: str, pattern: str) -> float:
        """Ms from writing `keys` until `pattern` is drawn."""
        self._mark = len(self.seen)
        began = time.perf_counter()
        os.write(self.master, keys.encode())
        return self.wait_for(pattern, since=began)

    def wait_quiet(self, quiet: float = 0.3) -> None:
        """Until nothing has been drawn for `quiet` seconds (the app is idle)."""
        while self._read(quiet):
            pass
