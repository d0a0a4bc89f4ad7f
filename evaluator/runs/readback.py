"""Every run spanlab writes, spanlab can read back (§21): the write path runs the reader's
own checks, so a run no `show`, `diff` or triage could open is refused before anything of
it is written, naming the key, and never left on disk for the next reader to trip on.

Two moments: the corpus's document names before a run starts (a name the reader refuses,
such as one holding a bidirectional control, would otherwise cost a whole run and reach
`chunks.tsv` too, which names every document); and the finished run, parsed back from the
very text that would be written, before its folder is made.
"""

from __future__ import annotations

from collections.abc import Iterable

from evaluator.runs.model import FILE_NAME, RunFile
from evaluator.runs.model_json import RunFileError, parse
from labeler.core.display import describe, shown, unsafe_at
from labeler.core.errors import CorpusError

_FIX = "nothing was written; this is a fault in spanlab or in what it was given: report it"


def require_names(documents: Iterable[str], corpus: str) -> None:
    """Refuse (exit 2) a document whose name a run cannot hold: spanlab's reader would
    refuse the run that names it (run.json) and every terminal would be told to act on it."""
    for doc in documents:
        if (at := unsafe_at(doc)) is not None:
            raise CorpusError(
                f"document '{shown(doc, lines=False)}': its name holds {describe(doc, at)}, "
                "which no run may hold; nothing was written",
                file=corpus, hint="rename the file (or leave it out with `include`)",
            )  # fmt: skip


def require_readable(run: RunFile, where: str) -> str:
    """run.json's text for `run`, parsed back as `read_run` would read it (`where`: the folder
    it would be written in), refused with the reader's own words and key."""
    file = f"{where}/{FILE_NAME}"
    text = run.dumps()
    try:
        RunFile.from_json(parse(text, file), file=file)
    except RunFileError as exc:
        raise RunFileError(
            f"the run would not read back ({exc.message}); {_FIX}",
            file=exc.file, key=exc.key, offset=exc.offset,
        ) from None  # fmt: skip
    return text
