"""A PDF extracted in a child process with a memory cap and a deadline (§22, §13).

pdfium is C: a bomb of object streams or a page asking for gigabytes is not stopped by a
page count, and a crash would take the whole read with it. The child runs under
RLIMIT_AS and is killed at the deadline; the parent names the file and reads the rest.
pdfplumber (pdfminer, in Python) runs in the same child under the same bounds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import labeler
from labeler.core.corpus.extract import stored
from labeler.core.corpus.extract.base import Extracted, SourceError


@dataclass(frozen=True)
class Bounds:
    """What one PDF may cost."""

    address_space: int = 1536 << 20
    """The child's address-space cap in bytes (interpreter and pdfium included)."""
    seconds: float = 300.0
    """Wall-clock deadline for the whole extraction: a 500-page PDF of text took 80 s
    on a loaded two-core machine, so this stops only what loops or crawls."""


BOUNDS = Bounds()
"""The bounds a corpus read uses."""
HINT = "split the PDF, or print it to a new PDF, then read it again"
HOME = str(Path(labeler.__file__).resolve().parent.parent)
"""Where this spanlab's packages are: the child imports the same code as its parent."""


def _failed(file: str, why: str) -> SourceError:
    return SourceError(f"extraction stopped: {why}", file=file, hint=HINT)


LIBRARIES = {"pdf:pypdfium2": "pdfium", "pdf:pdfplumber": "pdfminer"}
"""The extractors the child runs, each with the library a crash would be in."""


def extract_pdf_bounded(
    raw: bytes,
    file: str,
    bounds: Bounds | None = None,
    settings: Mapping[str, str] | None = None,
    extractor: str = "pdf:pypdfium2",
) -> Extracted:
    """`extract_pdf` (or another of LIBRARIES) in a child; SourceError names the file when
    it fails, overruns its memory cap or its deadline (the child is killed). `bounds`:
    BOUNDS as it is now; `settings`: an extractor candidate's settings, already checked
    (none: the project's)."""
    bounds = bounds or BOUNDS
    # -P: the working folder (a shared project a member writes in) is not on the child's
    # path, so a `json.py` planted there is never imported in place of the library's
    command = [sys.executable, "-P", "-m", "labeler.core.corpus.extract.child",
               str(bounds.address_space)]  # fmt: skip
    if settings or extractor != "pdf:pypdfium2":
        command.append(json.dumps(dict(settings or {}), sort_keys=True))
    if extractor != "pdf:pypdfium2":
        command.append(extractor)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [HOME, os.environ.get("PYTHONPATH")])),
    }
    if not sys.executable:
        raise _failed(file, "no Python interpreter to run the extractor in (sys.executable "
                      "is empty)")  # fmt: skip
    with tempfile.TemporaryFile() as out:  # on disk, capped by the child's RLIMIT_FSIZE
        try:
            done = subprocess.run(command, input=raw, stdout=out, stderr=subprocess.DEVNULL,
                                  timeout=bounds.seconds, env=env, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            raise _failed(file, f"it took longer than {bounds.seconds:g} s") from None
        except OSError as exc:
            raise _failed(file, f"the extractor could not start ({exc.strerror})") from None
        out.seek(0)
        answer = out.read(stored.MAX_ANSWER + 1)
    over = len(answer) > stored.MAX_ANSWER  # or stopped at its cap (a write failed: EFBIG)
    if over or (done.returncode != 0 and len(answer) == stored.MAX_ANSWER):
        raise _failed(file, f"its answer was over {stored.MAX_ANSWER:,} bytes")
    if done.returncode != 0 or not answer:
        limit = f"{bounds.address_space >> 20:,} MiB"
        raise _failed(file, f"the extractor died (code {done.returncode}) - out of its {limit} "
                      f"of memory, or a crash in {LIBRARIES.get(extractor, 'pdfium')}")  # fmt: skip
    if answer.startswith(b"E"):
        try:
            message, hint = json.loads(answer[1:].decode("utf-8"))
        except (ValueError, TypeError):
            raise _failed(file, "its error did not read back") from None
        raise SourceError(str(message), file=file, hint=str(hint) if hint else None)
    try:
        return stored.loads(answer)
    except stored.Damaged as exc:
        raise _failed(file, f"its answer did not read back ({exc})") from None
