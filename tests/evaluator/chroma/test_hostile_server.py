"""`spanlab cache --chroma-url` against a server that answers with hostile replies (§20): NaN,
a 5,000-digit number, a list where an object belongs, 100,000-deep nesting, one byte every
2 s. Each is one line naming the server, exit 0 for the local listing, never a traceback
and never a hang. Each server is a stdlib http.server in a thread, answering chromadb's
opening calls as Chroma does and the listing with the hostile body."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evaluator.retrieval.chroma_reply import ReplyError, check
from labeler.cli import app
from tests.evaluator.quiet_http import QuietServer

NAME = "spanlab-" + "a" * 24 + "-x"


def collection(meta: Any) -> str:
    return json.dumps({
        "id": "00000000-0000-0000-0000-000000000001", "name": NAME, "configuration_json": {},
        "metadata": meta, "dimension": 3, "tenant": "default_tenant",
        "database": "default_database", "version": 0, "log_position": 0,
    })  # fmt: skip


def listing(meta: Any, value: str | None = None) -> bytes:
    """A listing of one collection; `value` replaces the metadata's `chunks: 1` as raw JSON."""
    text = "[" + collection(meta) + "]"
    return (text if value is None else text.replace('"chunks": 1', f'"chunks": {value}')).encode()


OPENING = {
    "/api/v2/heartbeat": b'{"nanosecond heartbeat": 1}',
    "/api/v2/auth/identity": b'{"user_id": "u", "tenant": "default_tenant", '
    b'"databases": ["default_database"]}',
    "/api/v2/tenants/default_tenant": b'{"name": "default_tenant"}',
    "/api/v2/tenants/default_tenant/databases/default_database": b'{"id": '
    b'"00000000-0000-0000-0000-000000000002", "name": "default_database", '
    b'"tenant": "default_tenant"}',
}
"""What chromadb's client asks while it opens, answered as a Chroma server does."""
SLOW = b""
"""The listing's reply that comes one byte every 2 s."""


class Server:
    """A fake Chroma server in a thread whose collection listing is `body`."""

    def __init__(self, body: bytes) -> None:
        self.stop = threading.Event()
        stop = self.stop

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                reply = OPENING.get(path, body if path.endswith("/collections") else b"{}")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply) or 1000))
                self.end_headers()
                if reply is SLOW:  # one byte every 2 s until the test ends
                    while not stop.wait(2.0):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                    return
                self.wfile.write(reply)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Server:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


CASES = [
    ("NaN", listing({"chunks": 1}, "NaN"), "NaN is not a number JSON may hold"),
    ("5,000 digits", listing({"chunks": 1}, "9" * 5000),
     "the integer 99999999999999999999… has over 20 digits"),
    ("a list for metadata", listing(["a"]), "at [0]: has `metadata` that is not an object"),
    ("an object for the listing", b'{"a": 1}', "is not an array (of collections)"),
    ("a list for a collection", b"[[1, 2]]", "at [0]: is not an object (a collection)"),
    ("100,000-deep body", listing({"chunks": 1}, "[" * 100_000 + "]" * 100_000),
     "is nested deeper than 64 levels"),
    ("nested metadata", listing({"chunks": 1}, '{"a": {"b": 1}}'),
     "has metadata `chunks` that is not a string, number or boolean"),
    ("not JSON", b"<html>hi</html>", "is not JSON"),
    ("not UTF-8", b"\xff\xfe[]", "is not JSON"),
    ("slow", SLOW, "did not answer within 1 s"),
]  # fmt: skip


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "spanlab.toml").write_text("chroma_timeout = 1\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    yield tmp_path


@pytest.mark.parametrize(("body", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hostile_reply_is_one_line_naming_the_server(
    project: Path, body: bytes, words: str
) -> None:
    with Server(body) as server:
        result = CliRunner().invoke(app, ["cache", "--chroma-url", server.url])
    assert result.exception is None, result.exception
    assert result.exit_code == 0, result.stdout + result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("chroma server"))
    assert line.startswith(f"chroma server    {server.url}  not listed: ")
    assert words in line


def test_a_deep_version_list_and_an_escape_in_metadata_are_read_safely(project: Path) -> None:
    """Metadata another writer garbled within the shapes: a 100,000-deep version list reads
    as none (no RecursionError); an OSC 52 in a candidate's name reaches no terminal raw."""
    meta = {"chunks": 1, "spanlab_versions": "[" * 100_000 + "]" * 100_000,
            "candidate": "c\x1b]52;c;QQ==\x07"}  # fmt: skip
    with Server(listing(meta)) as server:
        result = CliRunner().invoke(app, ["cache", "--chroma-url", server.url])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert f"  partial  {NAME}  c\\x1b]52;c;QQ==\\x07  1 chunks\n" in result.stdout
    assert "\x1b" not in result.stdout


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                  max_size=3),
    max_leaves=8,
)  # fmt: skip
"""Any JSON value (NaN and infinities included, as Python writes them)."""
PATHS = [
    "/api/v2/tenants/t/databases/d/collections",
    "/api/v2/tenants/t/databases/d/collections/c",
    "/api/v2/heartbeat",
]


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(PATHS), body=st.binary(max_size=300) | JSON.map(
    lambda v: json.dumps(v).encode()))  # fmt: skip
def test_any_reply_is_read_or_refused_by_a_reply_error(path: str, body: bytes) -> None:
    """What chromadb is handed after `check` is bounded JSON of the promised shape; anything
    else is a ReplyError naming the call, never another exception."""
    request = httpx.Request("GET", "http://127.0.0.1:1" + path)
    try:
        check(request, 200, body)
    except ReplyError as exc:
        assert exc.message.startswith(f"the Chroma server's reply to http://127.0.0.1:1{path}")
