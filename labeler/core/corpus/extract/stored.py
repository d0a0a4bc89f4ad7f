"""An extraction as JSON, for the bounded child's answer and the extraction cache (§22).

Both cross a trust boundary (another process; a file on disk), so reading one back checks
every field and the text's digest: a damaged or edited entry is refused, never bound.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from labeler.core.corpus.extract.base import Extracted, Extractor
from labeler.core.corpus.extract.places import Place, SourceMap

FORMAT = "spanlab.extraction/1"
MAX_ANSWER = 256 << 20
"""Largest answer a PDF child may write (its RLIMIT_FSIZE; the parent reads no more)."""


class Damaged(ValueError):
    """A stored extraction that does not read back whole."""


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def dumps(found: Extracted, source: str = "") -> bytes:
    """The extraction as one JSON document, with the text's digest and, for the cache, the
    digest of the source bytes it was made from."""
    ex = found.extractor
    data = {"format": FORMAT, "source": source, "text": found.text, "digest": digest(found.text),
            "extractor": [ex.name, ex.version, [list(kv) for kv in ex.settings]],
            "pages": found.map.pages, "blank": list(found.map.blank),
            "places": [[p.start, p.end, p.page, p.box, p.path]
                       for p in found.map.places]}  # fmt: skip
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _place(raw: Any, length: int) -> Place:
    start, end, page, box, path = raw
    if not 0 <= int(start) < int(end) <= length:
        raise Damaged(f"a place {start}..{end} outside the text")
    four = None if box is None else (float(box[0]), float(box[1]), float(box[2]), float(box[3]))
    return Place(int(start), int(end), int(page), four, str(path))


def loads(raw: bytes) -> Extracted:
    """An extraction back from `dumps`; Damaged when any part of it does not check."""
    return loads_keyed(raw)[1]


def loads_keyed(raw: bytes) -> tuple[str, Extracted]:
    """The source digest and the extraction back from `dumps`; Damaged as `loads`."""
    try:
        data = json.loads(raw.decode("utf-8"))
        text = data["text"]
        if data["format"] != FORMAT or not isinstance(text, str) or data["digest"] != digest(text):
            raise Damaged("its text does not have the digest stored with it")
        name, version, settings = data["extractor"]
        places = tuple(_place(p, len(text)) for p in data["places"])
        extractor = Extractor(str(name), str(version), tuple((str(k), v) for k, v in settings))
        blank = tuple(int(n) for n in data["blank"])
        found = Extracted(text, SourceMap(places, int(data["pages"]), blank), extractor)
        return str(data["source"]), found
    except Damaged:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError) as exc:
        raise Damaged(f"not a stored extraction ({type(exc).__name__})") from None
