"""The child process a PDF is extracted in (§22, §13): pdfium parses in C (pdfminer, for
pdfplumber, in Python), where a hostile file can ask for gigabytes or loop, so the parse
runs here under an address-space limit and the parent's deadline, and a crash costs this
process, never the corpus read.

`python -m labeler.core.corpus.extract.child <bytes of address space> [<settings as JSON>
[<extractor>]]`: the PDF on stdin; the extractor `pdf:pypdfium2` (the default, its rules
as the settings leave them) or `pdf:pdfplumber`; on stdout a stored extraction
(`stored.dumps`), or `E` and a JSON [message, hint].
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from labeler.core.corpus.extract.base import Extracted


def _limit(address_space: int, answer: int) -> None:
    """Cap this process's address space (where the platform can; RLIMIT_AS is Linux's) and
    the size of what it writes (its answer goes to a file: a larger one kills it)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no rlimits
        return
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    answer = answer if hard == resource.RLIM_INFINITY else min(answer, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (answer, answer))
    if address_space > 0:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))


def _read(name: str, raw: bytes, settings: dict[str, str]) -> Extracted:
    """The PDF read by the extractor `name` (a fixed table: no module named by the caller)."""
    if name == "pdf:pdfplumber":
        from labeler.core.corpus.extract.plumber import extract_pdfplumber

        return extract_pdfplumber(raw, "-", settings)
    from labeler.core.corpus.extract.pdf import Rules, extract_pdf

    return extract_pdf(raw, "-", Rules.of(settings))


def main() -> int:
    from labeler.core.corpus.extract import stored
    from labeler.core.corpus.extract.base import SourceError

    raw = sys.stdin.buffer.read()
    _limit(int(sys.argv[1]), stored.MAX_ANSWER)
    settings = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    try:
        found = _read(sys.argv[3] if len(sys.argv) > 3 else "pdf:pypdfium2", raw, settings)
    except SourceError as exc:
        sys.stdout.buffer.write(b"E" + json.dumps([exc.message, exc.hint]).encode("utf-8"))
        return 0
    sys.stdout.buffer.write(stored.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
