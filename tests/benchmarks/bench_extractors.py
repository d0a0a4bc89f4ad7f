"""Two libraries per format, measured (§22): pypdfium2 against pdfplumber on the demo's PDF
and a 100-page PDF, the standard library's HTML reader against inscriptis on the demo's page.
Each case in a fresh process; a PDF is read in its bounded child as a comparison reads it,
and the peak RSS is the child's. Prints a Markdown table; asserts nothing.

    python -m tests.benchmarks.bench_extractors
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from labeler.core.corpus.extract.choices import choose
from tests.benchmarks.bench_sources import pages_pdf

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "corpus"
SOURCES = {
    "demo handbook PDF (3 pages)": ("reference/installer-handbook.pdf", None),
    "100-page PDF (40 lines a page)": ("long.pdf", 100),
    "demo help page (HTML)": ("help/hub-lights.html", None),
}
EXTRACTORS = {".pdf": ("pdf:pypdfium2", "pdf:pdfplumber"),
              ".html": ("html:stdlib", "html:inscriptis")}  # fmt: skip


def one(source: str, extractor: str) -> None:
    """Extract one source by one extractor here; print its time and peak RSS as JSON."""
    path, pages = SOURCES[source]
    raw = pages_pdf(pages) if pages else (DEMO / path).read_bytes()
    chosen = choose(extractor, {}, file="bench", key="x")
    started = time.perf_counter()
    found = chosen.extract(path, raw, path)
    seconds = time.perf_counter() - started
    who = resource.RUSAGE_CHILDREN if path.endswith(".pdf") else resource.RUSAGE_SELF
    print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(who).ru_maxrss / 1024,
                      "chars": len(found.text), "places": len(found.map.places)}))  # fmt: skip


def main() -> None:
    print("| Source | Extractor | Time | Peak RSS | Characters | Places |")
    print("|---|---|---|---|---|---|")
    for source, (path, _) in SOURCES.items():
        for extractor in EXTRACTORS[Path(path).suffix]:
            done = subprocess.run(
                [sys.executable, "-m", "tests.benchmarks.bench_extractors", source, extractor],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            got = json.loads(done.stdout)
            print(f"| {source} | {extractor} | {got['seconds']:.2f} s | {got['peak_mib']:.0f} MiB "
                  f"| {got['chars']:,} | {got['places']:,} |")  # fmt: skip


if __name__ == "__main__":
    if len(sys.argv) > 2:
        one(sys.argv[1], sys.argv[2])
    else:
        main()
