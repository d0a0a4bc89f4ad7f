"""A Chroma server for the server tests: CI's (SPANLAB_TEST_CHROMA_URL) or one started here."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("SPANLAB_TEST_CHROMA_URL")
    if given:
        assert _alive(given), f"SPANLAB_TEST_CHROMA_URL={given} does not answer"
        yield given
        return
    chroma = shutil.which("chroma")
    assert chroma, "the chroma command (from the chromadb wheel) is not installed"
    port = _free_port()
    folder: Path = tmp_path_factory.mktemp("chroma-server")
    proc = subprocess.Popen(
        [chroma, "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not _alive(url):
            assert proc.poll() is None, "chroma run exited"
            assert time.monotonic() < deadline, "chroma run did not answer within 30 s"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def private_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A `chroma run` of this test alone, which it may stop or kill."""
    port = _free_port()
    proc = subprocess.Popen(
        ["chroma", "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while not _alive(url):
        assert proc.poll() is None and time.monotonic() < deadline, "chroma run did not start"
        time.sleep(0.2)
    try:
        yield url, proc
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.kill()
        proc.wait(timeout=30)
