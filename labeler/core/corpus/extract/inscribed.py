"""HTML to text with inscriptis (design §22): a second library, for extractors judged as candidates.

inscriptis lays a page out as a text browser would (lists indented with bullets, tables in
aligned columns) and records, for elements an annotation rule names, which stretch of its
text each one wrote. Every element is given its path as an attribute that such a rule reads,
so each character's place is the innermost element that wrote it: a map made by the library's
own arithmetic, never by searching. lxml parses the page; the size and depth caps are the
standard library reader's.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Mapping
from typing import Any

from labeler.core.corpus.extract.base import Extracted, Extractor, SourceError, library, version_of
from labeler.core.corpus.extract.html import MAX_BYTES, MAX_DEPTH, decode
from labeler.core.corpus.extract.places import MapBuilder

RULES = "1"
"""Version of the writing below; part of the extractor's version."""
NAME = "html:inscriptis"
CHOICES: dict[str, tuple[str, ...]] = {"css": ("relaxed", "strict")}
"""Settings an extractor comparison may give: inscriptis's CSS profile (`strict` adds no
spaces around inline elements that the page did not have)."""
PATH = "data-spanlab-path"
"""The attribute each element's path's number is written to (a page's own is overwritten)."""

Mark = tuple[int, int, str]
"""A stretch of the text, and the path of the element that wrote it."""


def _paths(root: Any, file: str) -> list[str]:
    """Each element's path (`html/body/main/table/tr[2]/td`), its number in the list written
    into it (a number: a tag name may hold what an attribute value cannot); a page nested
    deeper than MAX_DEPTH is refused, naming its line, before inscriptis recurses into it."""
    paths = [str(root.tag)]
    root.set(PATH, "0")
    stack: list[tuple[Any, str, int]] = [(root, paths[0], 1)]
    while stack:
        element, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SourceError(f"elements nest deeper than {MAX_DEPTH} levels", file=file,
                              line=element.sourceline)  # fmt: skip
        seen: Counter[str] = Counter()
        for child in element:
            if not isinstance(child.tag, str):
                continue  # a comment or processing instruction: no element
            seen[child.tag] += 1
            at = f"{path}/{child.tag}" + (f"[{seen[child.tag]}]" if seen[child.tag] > 1 else "")
            child.set(PATH, str(len(paths)))
            paths.append(at)
            stack.append((child, at, depth + 1))
    return paths


def _mark(value: str, element: Any) -> None:
    element.annotation = (value,)


def _innermost(marks: list[Mark]) -> list[Mark]:
    """Each stretch of text with the deepest element covering it (the later one of two as
    deep): a sweep over the marks' ends, so nesting need not be exact (table cells)."""
    cuts = sorted({p for s, e, _ in marks for p in (s, e)})
    order = sorted(marks)
    live: list[tuple[int, int, int, str]] = []
    out: list[Mark] = []
    i = 0
    for a, b in itertools.pairwise(cuts):
        while i < len(order) and order[i][0] <= a:
            s, e, path = order[i]
            heapq.heappush(live, (-path.count("/"), -s, e, path))
            i += 1
        while live and live[0][2] <= a:
            heapq.heappop(live)
        if live:
            out.append((a, b, live[0][3]))
    return out


def _write(text: str, marks: list[Mark]) -> MapBuilder:
    """The text, each marked stretch placed (its edge whitespace not), the rest unplaced."""
    out, at = MapBuilder(), 0
    for start, end, path in _innermost(marks):
        out.write(text[at:start])
        stretch = text[start:end]
        words = stretch.strip()
        lead = len(stretch) - len(stretch.lstrip())
        out.write(stretch[:lead])
        out.add(words, path=path)
        out.write(stretch[lead + len(words) :])
        at = end
    out.write(text[at:])
    return out


def extract_inscriptis(
    raw: bytes, file: str, settings: Mapping[str, str] | None = None
) -> Extracted:
    """A page's text by inscriptis; SourceError names what is wrong with it. `settings`:
    checked against CHOICES (none: inscriptis's defaults)."""
    if len(raw) > MAX_BYTES:
        raise SourceError(f"the page is {len(raw):,} bytes; at most {MAX_BYTES:,} are read",
                          file=file)  # fmt: skip
    page = decode(raw, file)
    lxml_html = library("lxml.html", "inscriptis", file)
    engine = library("inscriptis.html_engine", "inscriptis", file)
    config_module = library("inscriptis.model.config", "inscriptis", file)
    profiles = library("inscriptis.css_profiles", "inscriptis", file)
    chosen = {k: (settings or {}).get(k, v[0]) for k, v in CHOICES.items()}
    try:  # huge_tree: lxml's own cap (256 deep) would cut a page silently; ours refuses it
        root = lxml_html.document_fromstring(page, parser=lxml_html.HTMLParser(huge_tree=True))
    except (ValueError, lxml_html.etree.ParserError):  # empty, or no document at all
        raise SourceError("the page has no text", file=file) from None
    paths = _paths(root, file)
    config = config_module.ParserConfig(css=profiles.CSS_PROFILES[chosen["css"]])
    handler = config.attribute_handler
    handler.attribute_mapping = {**handler.attribute_mapping, PATH: _mark}
    laid = engine.Inscriptis(root, config)
    text = laid.get_text()
    if not text.strip():
        raise SourceError("the page has no text", file=file)
    marks = [(max(a.start, 0), min(a.end, len(text)), paths[int(a.metadata)])
             for a in laid.get_annotations()]  # fmt: skip
    final, places = _write(text, [m for m in marks if m[0] < m[1]]).finish()
    return Extracted(final, places, identity(chosen))


def identity(settings: Mapping[str, str] | None = None) -> Extractor:
    """This extractor's name, version (inscriptis's and lxml's) and settings."""
    chosen = {k: (settings or {}).get(k, v[0]) for k, v in CHOICES.items()}
    bound = {**chosen, "max_bytes": MAX_BYTES, "max_depth": MAX_DEPTH}
    version = f"{version_of('inscriptis')}/{version_of('lxml')}+{RULES}"
    return Extractor(NAME, version, tuple(sorted(bound.items())))
