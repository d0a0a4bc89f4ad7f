"""Where a candidate cuts a range, and what would hold it in one chunk (§17).

For fixed windows (chars, words, tokens) the answer comes from the splitters' own window
arithmetic: the least overlap at this size from which every larger one holds the range where
it sits, or "longer than the window" when no overlap can. Other splitters get the length
against their size limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.units import ListedUnits, Units, units_for
from evaluator.plan.model import Boundary, Hold
from labeler.core.display import shown

SIDE = 8
"""Characters shown either side of a boundary."""
WINDOWED = ("chars", "words", "tokens")
"""Splitters whose windows the plan can move by overlap."""


def boundaries(chunks: Sequence[Chunk], start: int, end: int, text: str) -> tuple[Boundary, ...]:
    """The chunk starts and ends strictly inside [start, end), with the characters beside each."""
    offsets = sorted({x for c in chunks for x in (c.start, c.end) if start < x < end})
    return tuple(
        Boundary(o, shown(text[max(0, o - SIDE) : o], lines=False),
                 shown(text[o : o + SIDE], lines=False))
        for o in offsets
    )  # fmt: skip


def measured(spec: SplitterSpec, text: str) -> Units:
    """`text` in the candidate's unit; in characters for one that has none (a chunk file or
    a ranked list, §14: their cuts were made elsewhere, in no unit spanlab knows)."""
    return units_for(spec.unit or "chars", text, spec.tokenizer)


def holds(start: int, end: int, a: int, b: int, threshold: float) -> bool:
    """Whether a chunk [a, b) holds [start, end): contains it, or covers `threshold` of it (§7)."""
    if a <= start and end <= b:
        return True
    shared = min(b, end) - max(a, start)
    return shared > 0 and shared / (end - start) >= threshold


def hold(
    spec: SplitterSpec, units: Units, text_len: int, start: int, end: int, threshold: float
) -> Hold:
    """What would hold [start, end) in one chunk of this candidate, in a reader's words; for
    fixed windows, first why the candidate's own overlap does not."""
    length, unit, size = units.count(start, end), spec.unit or "chars", spec.size
    windowed = spec.splitter in WINDOWED and not spec.library and not spec.exported
    why = f"overlap {spec.overlap} cannot hold it: " if windowed else ""
    if size and length > size:
        return Hold(length, None, f"{why}longer than the window ({length} > {size} {unit}): "
                    "no overlap can; a larger window or a structural split")  # fmt: skip
    if not windowed:
        room = f" ({length} of {size} {unit})" if size else ""
        return Hold(length, None, f"fits one chunk{room}, but a boundary falls inside it: a "
                    "split at its edges, or overlap, would hold it")  # fmt: skip
    least = least_overlap(spec, units, text_len, start, end, threshold)
    if least is None:
        return Hold(length, None, f"{why}no overlap at this size holds it where it sits; a "
                    "larger window or a structural split")  # fmt: skip
    return Hold(length, least, f"{why}overlap ≥ {least} at this size ({size} {unit}) holds it "
                "where it sits")  # fmt: skip


def least_overlap(
    spec: SplitterSpec, units: Units, text_len: int, start: int, end: int, threshold: float
) -> int | None:
    """The least overlap N such that every overlap from N to size - 1 holds the range
    (remembered: candidates of one size that differ in overlap, context or treatment ask
    the same question of the same document)."""
    return _least_overlap(spec.size, units, text_len, start, end, threshold)


@lru_cache(maxsize=64)  # a span's candidates ask one after another; few are kept
def _least_overlap(
    size: int, units: Units, text_len: int, start: int, end: int, threshold: float
) -> int | None:
    if not len(units):  # whitespace only: one window whatever the overlap, or none
        return 0 if text_len and holds(start, end, 0, text_len, threshold) else None
    held = _held_by_step(size, units, text_len, start, end, threshold)
    failed = np.flatnonzero(~held)
    steps = int(failed[0]) if failed.size else size  # steps 1.. that all hold
    return size - steps if steps else None


def _held_by_step(
    size: int, units: Units, text_len: int, start: int, end: int, threshold: float
) -> npt.NDArray[np.bool_]:
    """Per step 1..size (overlap size - 1 .. 0): whether one of `windows_near`'s windows at
    that step holds [start, end), all steps in a few array operations (§17: seconds)."""
    n, lo, hi = len(units), max(0, units.index(start) - 1), units.index(end)
    steps = np.arange(1, size + 1, dtype=np.int64)
    first = np.maximum(0, (lo - size) // steps)  # windows_near's first and last window
    last = np.minimum(hi // steps, (n - size - 1) // steps + 1 if n > size else 0)
    counts = np.maximum(0, last - first + 1)
    step_of = np.repeat(np.arange(size), counts)
    within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    firsts = (first[step_of] + within) * steps[step_of]
    a = np.where(firsts == 0, 0, _unit_starts(units, firsts))
    after = firsts + size
    b = np.where(after < n, _unit_starts(units, np.minimum(after, n - 1)), text_len)
    shared = np.minimum(b, end) - np.maximum(a, start)
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty range shares nothing
        covering = (shared > 0) & (shared / (end - start) >= threshold)
    holding = ((a <= start) & (end <= b)) | covering
    return np.bincount(step_of, weights=holding, minlength=size) > 0


def _unit_starts(units: Units, idx: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Where units `idx` start: listed starts, or the index itself for characters."""
    if not isinstance(units, ListedUnits) or not idx.size:
        return idx
    base = int(idx.min())
    return np.asarray(units.starts[base : int(idx.max()) + 1], dtype=np.int64)[idx - base]


def window_hold(
    chunks: Sequence[tuple[int, int]], window: int, start: int, end: int, threshold: float
) -> Hold:
    """What would hold [start, end) in what a `context = { window = N }` candidate sends:
    the least window (neighbours each side) that does, over one document's chunks
    (their (start, end), in order), or the whole document's."""
    for n in range(window + 1, len(chunks)):
        if any(holds(start, end, chunks[max(0, i - n)][0], chunks[min(len(chunks) - 1, i + n)][1],
                     threshold) for i in range(len(chunks))):  # fmt: skip
            return Hold(n, None, f"window {window} cannot hold it: window ≥ {n} holds it")
    return Hold(len(chunks), None, f"window {window} cannot hold it: no window in its "
                "document does; a structural split")  # fmt: skip


def cut_words(
    name: str,
    spec: SplitterSpec,
    chunks: Sequence[Chunk],
    text: str,
    start: int,
    end: int,
    threshold: float,
) -> str | None:
    """`tok128-ov0: cut at "R|efunds" at 160; overlap 0 cannot hold it: …` for a candidate
    no single chunk of which holds [start, end) (`plan`, `show` and triage say the same); None
    when one does. `chunks` are the candidate's chunks of the span's document."""
    if any(holds(start, end, c.start, c.end, threshold) for c in chunks):
        return None
    units = measured(spec, text)
    at = ", ".join(b.said for b in boundaries(chunks, start, end, text))
    return (
        f"{name}: cut at {at or 'no boundary inside'}; "
        + hold(spec, units, len(text), start, end, threshold).words
    )
