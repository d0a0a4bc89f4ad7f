"""HTML to Markdown-like canonical text with the standard library's parser (design §22).

A streaming parser keeps offsets exact and never recurses, so a page nested 10,000 deep is
refused by a depth count rather than a stack overflow. Boilerplate (navigation, footers,
cookie banners, scripts) is left out by tag, role and class; headings become `#`, list
items `-` (indented by depth), table rows pipe rows, and `pre` a fenced block.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser

from labeler.core.corpus.extract.base import Extracted, Extractor, SourceError
from labeler.core.corpus.extract.places import MapBuilder

RULES = "1"
"""Version of the rules below; the extractor's version (the parser is the standard library)."""
MAX_BYTES = 10 << 20
"""Largest page read; a larger one is skipped, named."""
MAX_DEPTH = 256
"""Deepest element nesting read; deeper is refused (no real page comes close)."""
SKIP = frozenset({"script", "style", "noscript", "template", "nav", "footer", "aside", "form",
                  "button", "svg", "iframe", "head", "select", "dialog", "object"})  # fmt: skip
"""Elements whose whole content is left out."""
BOILERPLATE = re.compile(r"cookie|consent|gdpr|banner|navbar|menu|breadcrumb|sidebar|footer|"
                         r"skip-link|advert|promo|newsletter|share", re.I)  # fmt: skip
"""id or class words of boilerplate containers."""
ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "dialog",
                   "alertdialog"})  # fmt: skip
VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "area", "base", "col", "embed",
                  "param", "source", "track", "wbr"})  # fmt: skip
BLOCKS = frozenset({"p", "pre", "table", "blockquote", "dl", "figure", "ul", "ol", "h1", "h2",
                    "h3", "h4", "h5", "h6"})  # fmt: skip
LINES = frozenset({"div", "section", "article", "main", "header", "li", "tr", "dt", "dd",
                   "figcaption", "address", "details", "summary", "caption"})  # fmt: skip
IMPLIED = {"p": {"p"}, "li": {"li"}, "tr": {"tr", "td", "th"}, "td": {"td", "th"},
           "th": {"td", "th"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}}  # fmt: skip
"""Open elements a start tag closes (`<li>a<li>b`)."""
SETTINGS = (("boilerplate", "drop"), ("max_bytes", MAX_BYTES), ("max_depth", MAX_DEPTH))


@dataclass
class _Frame:
    tag: str
    path: str
    skip: bool
    children: Counter[str] = field(default_factory=Counter)
    items: int = 0
    """Items so far of an `ol`; cells so far of a `tr`."""
    header: bool = False
    """A `tr` holding `th` cells."""


def _boilerplate(tag: str, attrs: dict[str, str | None], inside: Counter[str]) -> bool:
    if tag in SKIP or "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return True
    if tag == "header" and not (inside["article"] or inside["main"] or inside["section"]):
        return True
    if (attrs.get("role") or "") in ROLES:
        return True
    if not attrs:
        return False
    words = f"{attrs.get('id') or ''} {attrs.get('class') or ''}"
    return bool(words.strip()) and BOILERPLATE.search(words) is not None


class _Page(HTMLParser):
    """Writes a page's text into a MapBuilder as the parser meets it."""

    def __init__(self, file: str) -> None:
        super().__init__(convert_charrefs=True)
        self.file, self.out = file, MapBuilder()
        self.stack = [_Frame("", "", False)]
        self.open: Counter[str] = Counter()
        """How many elements of each tag are open."""
        self.skipping = 0
        self.fence = ""
        self.space = False
        """A space is owed before the next text on this line."""

    def _has(self, *tags: str) -> bool:
        return any(self.open[t] for t in tags)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for closes in IMPLIED.get(tag, ()):
            if self.stack[-1].tag == closes:
                self.handle_endtag(closes)
        if tag in VOID:
            if tag == "br" and not self.skipping:
                self._line()
            return
        if len(self.stack) > MAX_DEPTH:
            raise SourceError(f"elements nest deeper than {MAX_DEPTH} levels", file=self.file,
                              line=self.getpos()[0])  # fmt: skip
        parent = self.stack[-1]
        parent.children[tag] += 1
        path = f"{parent.path}/{tag}" if parent.path else tag
        if parent.children[tag] > 1:
            path += f"[{parent.children[tag]}]"
        attributes = dict(attrs)
        skip = _boilerplate(tag, attributes, self.open)
        self.stack.append(_Frame(tag, path, skip))
        self.open[tag] += 1
        self.skipping += skip
        if not self.skipping:
            self._open(tag, attributes)

    def _open(self, tag: str, attrs: dict[str, str | None]) -> None:
        out = self.out
        self.space = self.space and tag not in BLOCKS | LINES
        if tag in ("ul", "ol") and self._has("li"):
            out.line()
        elif tag in BLOCKS and not self._has("td", "th"):
            out.block()
        elif tag in LINES and tag != "tr" and not self._has("td", "th"):
            out.line()
        if tag[0] == "h" and tag[1:].isdigit():
            out.write("#" * int(tag[1:]) + " ")
        elif tag == "li":
            lists = [f for f in self.stack if f.tag in ("ul", "ol")]
            out.write("  " * max(len(lists) - 1, 0))
            if lists and lists[-1].tag == "ol":
                lists[-1].items += 1
                out.write(f"{lists[-1].items}. ")
            else:
                out.write("- ")
        elif tag == "pre":
            lang = re.search(r"language-([\w+-]+)", attrs.get("class") or "")
            self.fence = "```" + (lang.group(1) if lang else "")
        elif tag == "code" and self._has("pre"):
            lang = re.search(r"language-([\w+-]+)", attrs.get("class") or "")
            if self.fence == "```" and lang:
                self.fence += lang.group(1)
        elif tag == "code":
            if self.space and out.tail(1) not in ("\n", ""):
                out.write(" ")
            out.write("`")
            self.space = False
        elif tag == "tr":
            out.line()
            out.write("|")
        elif tag in ("td", "th"):
            row = self.stack[-2] if len(self.stack) > 1 else self.stack[-1]
            row.items += 1
            row.header |= tag == "th"
            out.write(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.open[tag]:
            return
        while self.stack[-1].tag != tag:
            self.handle_endtag(self.stack[-1].tag)
        frame = self.stack.pop()
        self.open[tag] -= 1
        if not self.skipping:
            self._close(frame)
        self.skipping -= frame.skip

    def _close(self, frame: _Frame) -> None:
        out, tag = self.out, frame.tag
        self.space = self.space and tag not in BLOCKS | LINES | {"td", "th"}
        if tag == "pre":
            if self.fence:  # an empty pre: nothing written
                self.fence = ""
                return
            out.line()
            out.write("```")
            out.block()
        elif tag == "code" and not self._has("pre"):
            out.write("`")
        elif tag in ("ul", "ol") and self._has("li"):
            out.line()
        elif tag in ("td", "th"):
            out.write(" |")
        elif tag == "tr":
            if frame.header:
                out.write("\n|" + " --- |" * frame.items)
            out.line()
        elif tag in BLOCKS and not self._has("td", "th"):
            out.block()
        elif tag in LINES and not self._has("td", "th"):
            out.line()

    def _line(self) -> None:
        if self._has("pre"):
            self._text("\n")
        elif self._has("td", "th"):
            self.space = True
        else:
            self.out.line()
            self.space = False

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self._text(data)

    def _text(self, data: str) -> None:
        out, path = self.out, self.stack[-1].path
        if self._has("pre"):
            if self.fence:
                out.line()
                out.write(self.fence + "\n")
                self.fence = ""
                data = data.removeprefix("\n")
            out.add(data, path=path)
            return
        text = re.sub(r"\s+", " ", data)
        words = text.strip(" ")
        if not words:
            self.space = self.space or bool(text)
            return
        fresh = out.pos == 0 or out.tail(2).endswith(("\n", "- ", "# ", ". ", "| "))
        if (self.space or text.startswith(" ")) and not fresh:
            out.write(" ")
        out.add(words, path=path)
        self.space = text.endswith(" ")


def decode(raw: bytes, file: str) -> str:
    """The page's text: UTF-8, else the charset it declares; binary data refused."""
    head = raw[:4096]
    if b"\x00" in head or raw.startswith((b"%PDF", b"PK\x03\x04")):
        raise SourceError("not an HTML page: it holds binary data (is its extension right?)",
                          file=file)  # fmt: skip
    try:
        return raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        declared = re.search(rb"charset=[\"']?([A-Za-z0-9_-]{1,40})", head)
        if declared:
            try:
                return raw.decode(declared.group(1).decode("ascii"))
            except (LookupError, UnicodeDecodeError):
                pass
        raise SourceError("not valid UTF-8, and no charset it declares reads it", file=file,
                          offset=exc.start) from None  # fmt: skip


def extract_html(raw: bytes, file: str) -> Extracted:
    """A page's readable text; SourceError names what is wrong with it."""
    if len(raw) > MAX_BYTES:
        raise SourceError(f"the page is {len(raw):,} bytes; at most {MAX_BYTES:,} are read",
                          file=file)  # fmt: skip
    page = _Page(file)
    try:
        page.feed(decode(raw, file))
        page.close()
    except AssertionError:  # the standard parser's way of refusing `<![` without a name
        raise SourceError("its markup cannot be parsed", file=file,
                          line=page.getpos()[0]) from None  # fmt: skip
    text, places = page.out.finish()
    if not text.strip():
        raise SourceError("the page has no text once navigation and other boilerplate are "
                          "left out", file=file)  # fmt: skip
    return Extracted(text, places, identity())


def identity() -> Extractor:
    """This extractor's name, version and settings (the extraction cache's key)."""
    return Extractor("html:stdlib", RULES, SETTINGS)
