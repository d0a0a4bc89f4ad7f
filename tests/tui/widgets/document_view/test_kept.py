"""The kept layouts: the same text at the same width comes back as the same object; a
changed text, another width, or one pushed out by newer documents is wrapped again."""

from __future__ import annotations

from labeler.tui.widgets.document_view.kept import KeptLayouts


def test_the_same_text_and_width_is_the_kept_layout() -> None:
    kept = KeptLayouts()
    first = kept.layout("a.md", "one two three\n", 5)
    assert kept.layout("a.md", "one two three\n", 5) is first
    assert kept.layout("a.md", "one two three\n", 9) is not first
    assert kept.layout("a.md", "one two four\n", 5).text == "one two four\n"
    assert [first.row_span(r) for r in range(first.rows)] == [(0, 4), (4, 8), (8, 13), (14, 14)]


def test_the_least_recently_used_layout_goes_first() -> None:
    kept = KeptLayouts(size=2)
    a = kept.layout("a.md", "alpha\n", 10)
    b = kept.layout("b.md", "beta\n", 10)
    assert kept.layout("a.md", "alpha\n", 10) is a  # a is now the most recent
    kept.layout("c.md", "gamma\n", 10)  # pushes b out
    assert kept.layout("a.md", "alpha\n", 10) is a
    assert kept.layout("b.md", "beta\n", 10) is not b
