"""Pieces every format reader and writer shares: located errors, fresh query ids,
duplicate detection, and the raw-text view that turns a foreign tool's offsets into
canonical ones (and back, for writers that must hand offsets to that tool again).
"""

from __future__ import annotations

import bisect
import csv
import io
import itertools
import json
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labeler.core.corpus.canonical import OffsetMap, canonicalize
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.files import sharing
from labeler.core.files.access import refused_write
from labeler.core.files.reading import bounded_lines, open_regular, read_bounded
from labeler.core.progress import Advance, TaskFactory, no_task, stepped
from labeler.core.text.graphemes import check_edges
from labeler.core.typed import MAX_LABEL_FILE, Refusal, clean, json_tree
from labeler.core.values import Query, Span, group_problem

BOM = "\ufeff"
_FRESH_ID = re.compile(r"^q-(\d+)$")
QUESTION = {"text": "question"}
"""A Query's `text` is the `question` of most files (for `Where.query`)."""


@dataclass(frozen=True)
class Where:
    """Where in an input file a value sits, so every error can name it."""

    file: str
    """The file as the user named it."""
    line: int | None = None
    """1-based line, for formats that have lines."""
    key: str | None = None
    """Key path inside the record (`references[2]`, `[3].data.text`)."""

    def at(self, key: str) -> Where:
        """The same place, one key deeper."""
        if not self.key:
            return Where(self.file, self.line, key)
        sep = "" if key.startswith("[") else "."
        return Where(self.file, self.line, f"{self.key}{sep}{key}")

    def error(
        self, message: str, *, offset: int | None = None, hint: str | None = None
    ) -> LabelError:
        return LabelError(
            message, file=self.file, line=self.line, key=self.key, offset=offset, hint=hint
        )

    def refuse(self, refusal: Refusal) -> LabelError:
        """How `labeler.core.typed` refuses a value here: its plain wording, located."""
        return self.error(refusal.message, offset=refusal.offset)

    def query(self, names: Mapping[str, str] | None = None, **fields: Any) -> Query:
        """A Query built from this record's fields; its refusal (a control character in
        the question, say) names this file, line and key (`names`: the record's own key
        for a Query field, `{"text": "question"}`)."""
        try:
            return Query(**fields)
        except LabelError as exc:
            key = (names or {}).get(exc.key or "", exc.key)
            place = self.at(key) if key else self
            raise place.error(exc.message, offset=exc.offset) from None


def facts_in(value: Any, where: Where) -> tuple[tuple[str, ...], ...]:
    """A record's `facts` (§23) as spanlab writes them, a list of facts each a list of
    texts (absent: none); the query's own rule checks the rest (lengths, duplicates)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise where.error("facts must be a list of facts, each a list of phrasings")
    for i, fact in enumerate(value):
        if not isinstance(fact, list) or not all(isinstance(p, str) for p in fact):
            raise where.at(f"[{i}]").error("a fact must be a list of texts (its phrasings)")
    return tuple(tuple(f) for f in value)


def clean_text(text: str) -> str:
    """A question as stored: canonical (NFC, LF) and stripped."""
    return canonicalize(text).strip()


def text_key(text: str) -> str:
    """Identity of a question for duplicate checks: case- and whitespace-insensitive."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


@dataclass
class FreshIds:
    """Hands out `q-NNNN` ids after the largest existing one, never reusing a taken id."""

    taken: set[str] = field(default_factory=set)
    """Ids already in use (the store's, and ids kept from the file)."""
    last: int = 0
    """The largest `q-NNNN` number seen."""
    handed: set[str] = field(default_factory=set)
    """Ids this made up: placeholders the store replaces with ids it allocates (§3)."""

    @classmethod
    def after(cls, existing: Iterable[Query], reserved: Iterable[str] = ()) -> FreshIds:
        ids = FreshIds()
        for qid in [*(q.id for q in existing), *reserved]:
            ids.take(qid)
        return ids

    def take(self, qid: str) -> None:
        self.taken.add(qid)
        m = _FRESH_ID.match(qid)
        if m:
            self.last = max(self.last, int(m.group(1)))

    def next(self) -> str:
        self.last += 1
        qid = f"q-{self.last:04d}"
        while qid in self.taken:
            self.last += 1
            qid = f"q-{self.last:04d}"
        self.taken.add(qid)
        self.handed.add(qid)
        return qid


def valid_id(qid: str) -> bool:
    """Whether a file's own id can be kept as a query id."""
    try:
        Query(id=qid, text="?")
    except LabelError:
        return False
    return True


# -- raw text and offsets ----------------------------------------------------------------


class RawView:
    """A document's text as another tool indexed it, mapped onto the canonical text.

    `raw` is exactly the string the tool's offsets count code points in. A leading BOM
    character is skipped (canonical text never keeps one); the rest goes through
    OffsetMap unless it already is canonical, when offsets pass through unchanged.
    """

    def __init__(self, raw: str) -> None:
        self.raw = raw
        """The string the tool's offsets count in, whose clusters a span must not cut."""
        self.shift = 1 if raw.startswith(BOM) else 0
        """Code points before the text proper (a BOM character)."""
        body = raw[self.shift :]
        self.canonical = canonicalize(body)
        """The canonical text the view maps into."""
        self.raw_length = len(raw)
        """Code points in the raw string."""
        self._map = OffsetMap(body) if body != self.canonical else None
        self._inverse: list[int] | None = None

    def to_canonical(self, raw_offset: int) -> int:
        body = max(0, raw_offset - self.shift)
        return body if self._map is None else self._map.to_canonical(body)

    def to_raw(self, canonical_offset: int) -> int:
        """The first raw offset that maps onto `canonical_offset`: the start of the raw
        piece whose canonical text begins there, so a span keeps its combining marks and
        never ends between CR and LF."""
        if self._map is None:
            return canonical_offset + self.shift
        if self._inverse is None:
            body_length = self.raw_length - self.shift
            self._inverse = [self._map.to_canonical(r) for r in range(body_length + 1)]
        return bisect.bisect_left(self._inverse, canonical_offset) + self.shift


def raw_span(
    view: RawView, doc: str, start: int, end: int, quote: str | None, where: Where
) -> Span:
    """A span from raw offsets: checked in range, remapped, and its quote compared."""
    if not 0 <= start < end <= view.raw_length:
        raise where.error(
            f"offsets {start}..{end} are out of range for {doc} (length {view.raw_length})",
            offset=start if not 0 <= start < view.raw_length else end,
        )
    cstart, cend = view.to_canonical(start), view.to_canonical(end)
    found = view.canonical[cstart:cend]
    if quote is not None and canonicalize(quote) != found:
        raise where.error(
            f"quote does not match {doc} at {start}..{end}: file has {quote[:40]!r}, "
            f"text has {found[:40]!r}",
            offset=start,
        )
    if cstart >= cend:
        raise where.error(f"span {start}..{end} is empty in canonical text", offset=start)
    try:  # on the raw text too: the map moves an offset inside a cluster to its start
        check_edges(view.raw, doc, start, end)
        return Span.from_text(view.canonical, doc, cstart, cend)
    except LabelError as exc:  # an edge inside a grapheme cluster
        raise where.error(exc.message, offset=exc.offset) from None


def file_view(corpus: Corpus, doc: str) -> RawView:
    """The view of `doc` as Python's `open(path).read()` sees the file: UTF-8, universal
    newlines, BOM kept. Without a corpus folder the canonical text is all there is."""
    text = corpus.text(doc)
    if corpus.root is None:
        return RawView(text)
    path = corpus.root / doc
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raw = None
    if raw is None or canonicalize(raw.removeprefix(BOM)) != text:
        raise LabelError(
            "the document on disk differs from the corpus that was read",
            file=str(path),
            hint="read the corpus again (was it read with another --encoding?)",
        )
    return RawView(raw)


# -- files --------------------------------------------------------------------------------


def read_text(path: Path, limit: int = MAX_LABEL_FILE) -> str:
    """A UTF-8 input file (BOM dropped), exactly as written: no newline translation."""
    try:
        raw = read_bounded(path, limit, Where(str(path)))
    except OSError as exc:
        raise LabelError(f"cannot read: {exc.strerror}", file=str(path)) from None
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    try:
        return raw[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LabelError(
            f"not valid UTF-8: {exc.reason}", file=str(path), offset=exc.start + bom
        ) from None


def read_lines(
    path: Path, limit: int = MAX_LABEL_FILE, progress: TaskFactory = no_task
) -> Iterator[tuple[int, str]]:
    """(line, text without `\\n`) of a UTF-8 line file, streamed in bounded pieces;
    `progress` is told the bytes parsed of the file's size (issue 45)."""
    try:
        with (
            open_regular(path, limit, Where(str(path))) as handle,
            stepped(progress, f"reading {path.name}", os.fstat(handle.fileno()).st_size) as step,
        ):
            yield from bounded_lines(handle, limit, lambda n: Where(str(path), line=n),
                                     update=lambda raw: step(len(raw)))  # fmt: skip
    except OSError as exc:
        raise LabelError(f"cannot read: {exc.strerror}", file=str(path)) from None


def load_json(path: Path, progress: TaskFactory = no_task) -> Any:
    """The file's JSON; `progress` is told its size once parsed (C-fast: the records' checks,
    which `tasks.build` counts, are the long part)."""
    try:
        text = read_text(path)
        with progress(f"reading {path.name}", len(text)) as advance:
            tree = json_tree(text, Where(str(path)))
            advance(len(text))
        return tree
    except json.JSONDecodeError as exc:
        raise LabelError(f"not valid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None


def csv_rows(
    path: Path,
    required: Sequence[str],
    limit: int = MAX_LABEL_FILE,
    progress: TaskFactory = no_task,
) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line of the record, row) for each CSV record; the header must hold `required`;
    `progress` is told the characters parsed of the file's."""
    text = read_text(path, limit)
    with stepped(progress, f"reading {path.name}", len(text)) as step:
        yield from _csv_rows(path, io.StringIO(text, newline=""), required, step)


def _csv_rows(
    path: Path, buf: io.StringIO, required: Sequence[str], step: Advance
) -> Iterator[tuple[int, dict[str, str]]]:
    reader, first, at = csv.DictReader(buf, strict=True), 1, 0
    try:
        header = reader.fieldnames or []
        for column in required:
            if column not in header:
                raise LabelError(
                    f"the CSV has no {column!r} column (columns: {', '.join(header) or 'none'})",
                    file=str(path),
                    line=1,
                    key=column,
                )
        first = reader.line_num + 1
        for row in reader:
            if None in row:
                raise LabelError(
                    "the record has more fields than the header", file=str(path), line=first
                )
            yield first, clean({k: v or "" for k, v in row.items()}, Where(str(path), first))
            first = reader.line_num + 1
            step(buf.tell() - at)
            at = buf.tell()
    except csv.Error as exc:
        unclosed = " (a quoted field is never closed)" if "end of data" in str(exc) else ""
        raise LabelError(f"not valid CSV: {exc}{unclosed}", file=str(path), line=first) from None


def write_atomic(out: Path, text: str) -> None:
    """Write through a temporary file so a failed write leaves no half file behind."""
    try:
        sharing.write_text(out, text)
    except OSError as exc:
        message, hint = refused_write(out, exc)
        raise LabelError(message, file=str(out), hint=hint) from None


def json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def group_in(raw: Any, where: Where) -> int | None:
    """A record's `group` (§18): absent, or a positive integer."""
    if not isinstance(raw, dict) or "group" not in raw:
        return None
    return positive_group(raw["group"], where.at("group"))


def positive_group(group: Any, where: Where) -> int:
    """A group number (§18), refused at `where` unless a positive integer."""
    if (problem := group_problem(group)) is not None:
        raise where.error(f"group {problem}")
    return int(group)


def flattened(queries: Sequence[Query]) -> int:
    """Groups of two or more alternatives among the queries' evidence: what a format that
    cannot hold groups flattens (§18)."""
    n = 0
    for q in queries:
        sizes: dict[int, int] = {}
        for s in q.evidence:
            if s.group is not None:
                sizes[s.group] = sizes.get(s.group, 0) + 1
        n += sum(1 for size in sizes.values() if size > 1)
    return n


def left_out(queries: Sequence[Query]) -> tuple[tuple[str, int], ...]:
    """(what, how many) of the queries a tool that holds only spans in a text cannot hold."""
    abstain = sum(1 for q in queries if q.abstain and not q.evidence)
    empty = sum(1 for q in queries if not q.abstain and not q.evidence)
    kinds = (("abstention quer(y/ies) left out: no document text to hold them", abstain),
             ("quer(y/ies) without evidence left out: no document text", empty))  # fmt: skip
    return tuple((why, n) for why, n in kinds if n)


def overlapping(queries: Sequence[Query]) -> int:
    """Spans that overlap another span of their query in the same document."""
    n = 0
    for q in queries:
        spans = sorted((s.doc, s.start, s.end) for s in q.evidence)
        n += sum(1 for a, b in itertools.pairwise(spans) if a[0] == b[0] and b[1] < a[2])
    return n
