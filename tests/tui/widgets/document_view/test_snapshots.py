"""Snapshots of the document view over Markdown with a table and fenced code at 80×24,
each saying what the picture must show.

Deterministic by settings (`cursor_blink=False`, an in-test store). The document is
`GUIDE`; the label screen opens on it because it is the corpus's only document.
Update with: pytest tests/tui/widgets/document_view/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from tests.tui.conftest import QUIET

SnapCompare = Callable[..., bool]

GUIDE = (
    "# Webhooks\n"
    "\n"
    "We retry a failed delivery on the following schedule, then drop the event.\n"
    "\n"
    "| Attempt | Delay after the previous attempt | Time since the event |\n"
    "|---------|----------------------------------|----------------------|\n"
    "| 1 | immediately | 0 minutes |\n"
    "| 2 | 1 minute | 1 minute |\n"
    "| 7 | 24 hours | 34 hours 36 minutes |\n"
    "\n"
    "```python\n"
    "def verify(body: bytes, header: str, secret: str, tolerance: int = 300) -> bool:\n"
    "    parts = dict(item.split('=', 1) for item in header.split(','))\n"
    "    if abs(time.time() - int(parts['t'])) > tolerance:\n"
    "        return False\n"
    "    return hmac.compare_digest(expected, parts['v1'])\n"
    "```\n"
    "\n"
    "Use the raw body exactly as received: parsing the JSON and serialising it again"
    " changes whitespace and key order.\n"
)


def guide_app(tmp_path: Path) -> SpanlabApp:
    corpus = Corpus.from_texts({"webhooks.md": GUIDE})
    store = Store.open(tmp_path / "guide.db")
    store.bind(corpus.doc_hashes)
    store.add_query("How often is a webhook retried?", annotator="ann")
    return SpanlabApp(store, corpus, annotator="ann", settings=QUIET)


def test_table_and_code_unwrapped(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The two prose paragraphs soft-wrap in the 48-column pane; every table row and code
    line is one screen row, clipped, with a dim `›` in the last column where it goes on;
    the code keeps its 4- and 8-space indentation; the fences are drawn as text."""
    assert snap_compare(guide_app(tmp_path), terminal_size=(80, 24))


def test_code_shifted_to_follow_the_cursor(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The cursor at the end of the `def verify(…) -> bool:` line: the code block is
    shifted so `-> bool:` and the cursor after it show, each of its rows starts with a
    dim `‹` (the fence rows show only the `‹`); the table above is not shifted."""
    press = ["enter", *["down"] * 12, "end"]
    assert snap_compare(guide_app(tmp_path), press=press, terminal_size=(80, 24))
