"""The versions view: two annotators' spans over one text, each character styled by who
marked it. It only draws what the screen hands it (attributes down) and never reads the
store; its styles are component classes, so themes colour them.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from labeler.core.display import masked, shown
from labeler.tui.agreement.model import Piece


class VersionsView(Static):
    """Text with both versions marked: both, only the first, only the second."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "versions-view--both", "versions-view--first", "versions-view--second",
    }  # fmt: skip
    DEFAULT_CSS = """
    VersionsView .versions-view--both { background: $success 40%; }
    VersionsView .versions-view--first { background: $warning 40%; text-style: underline; }
    VersionsView .versions-view--second { background: $error 40%; text-style: italic; }
    """

    def show(self, pair: tuple[str, str], sides: list[tuple[str, list[Piece]]]) -> None:
        """Draw every document of the pair's versions, with a legend naming the two."""
        text = Text()
        first, second = (f"versions-view--{k}" for k in ("first", "second"))
        text.append("legend: ")
        text.append("both", self.get_component_rich_style("versions-view--both"))
        text.append(" · ")
        text.append(f"only {shown(pair[0], lines=False)}", self.get_component_rich_style(first))
        text.append(" · ")
        text.append(f"only {shown(pair[1], lines=False)}", self.get_component_rich_style(second))
        for doc, pieces in sides:
            text.append(f"\n\n{shown(doc, lines=False)}\n", "bold")
            for p in pieces:
                style = None if p.mark == "none" else f"versions-view--{p.mark}"
                text.append(masked(p.text), self.get_component_rich_style(style) if style else "")
        if not sides:
            text.append("\n\nNeither version has a span (both abstain, or neither marked).")
        self.update(text)
