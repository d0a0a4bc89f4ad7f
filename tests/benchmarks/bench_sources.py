"""Hostile sources and the extraction cache, measured (§22, §13): each case in a fresh
process, its time and peak RSS (the process and its PDF child), and a 100-page PDF corpus
read cold and warm. Prints a Markdown table; asserts only that each case ends as expected.

    python -m tests.benchmarks.bench_sources
"""

from __future__ import annotations

import io
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reportlab.pdfgen import canvas

from labeler.core.corpus.extract.base import SourceError
from labeler.core.corpus.extract.cache import ExtractionCache
from labeler.core.corpus.extract.read import extract
from labeler.core.corpus.folder import Corpus
from tests.core.sources.makers import bomb_pdf, policy_docx
from tests.core.sources.test_extract_bad_input import deep_html, zip_bomb


def pages_pdf(pages: int) -> bytes:
    """`pages` pages of 40 lines of text each."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(612, 792), invariant=1)
    for page in range(pages):
        c.setFont("Helvetica", 10)
        for i in range(40):
            c.drawString(60, 740 - 17 * i, f"Page {page + 1} line {i + 1}: refunds, returns "
                         "and the warranty, in one sentence of ordinary length.")  # fmt: skip
        c.showPage()
    c.save()
    return out.getvalue()


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "PDF bomb, 64 MiB inflated": ("bomb.pdf", lambda: bomb_pdf(64)),
    "PDF bomb, 96 MiB inflated": ("bomb.pdf", lambda: bomb_pdf(96)),
    "500-page PDF": ("long.pdf", lambda: pages_pdf(500)),
    "501-page PDF": ("longer.pdf", lambda: pages_pdf(501)),
    "HTML of 50 MB": ("big.html", lambda: b"<p>" + b"a" * (50 << 20)),
    "HTML nested 10,000 deep": ("deep.html", lambda: deep_html(10_000)),
    "DOCX zip bomb, 210 MiB of zeros": ("bomb.docx", lambda: zip_bomb(210)),
    "a DOCX named .pdf": ("policy.pdf", policy_docx),
}


def one(case: str) -> None:
    """Run one case here and print what it cost, as JSON."""
    name, make = CASES[case]
    raw = make()
    started = time.perf_counter()
    try:
        extract(name, raw, name)
        outcome = "read"
    except SourceError as exc:
        outcome = exc.message
    seconds = time.perf_counter() - started
    peak = max(resource.getrusage(who).ru_maxrss
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))  # fmt: skip
    print(json.dumps({"bytes": len(raw), "outcome": outcome, "seconds": seconds,
                      "peak_mib": peak / 1024}))  # fmt: skip


def cold_and_warm(pages: int = 100) -> tuple[float, float]:
    """A corpus of one `pages`-page PDF read without a cache entry, then with one."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpus"
        root.mkdir()
        (root / "handbook.pdf").write_bytes(pages_pdf(pages))
        cache = ExtractionCache(Path(tmp) / "extractions" / "me")
        times = []
        for _ in range(2):
            started = time.perf_counter()
            Corpus.read(root, cache=cache)
            times.append(time.perf_counter() - started)
        return times[0], times[1]


def main() -> None:
    print("| Hostile source | Size | Outcome | Time | Peak RSS |")
    print("|---|---|---|---|---|")
    for case in CASES:
        done = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_sources", case],
                              capture_output=True, text=True, check=True)  # fmt: skip
        got = json.loads(done.stdout)
        print(f"| {case} | {got['bytes']:,} B | {got['outcome'][:60]} | {got['seconds']:.2f} s "
              f"| {got['peak_mib']:.0f} MiB |")  # fmt: skip
    cold, warm = cold_and_warm()
    print(f"\n100-page PDF corpus: cold {cold:.2f} s, warm {warm:.3f} s")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        one(sys.argv[1])
    else:
        main()
