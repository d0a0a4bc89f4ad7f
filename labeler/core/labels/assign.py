"""Which annotator labels which query: queues by round robin, optionally within a slice.

A plain function from query rows to (query id, annotator) pairs, so the CLI only parses
and the store only writes. With `copies=2` every query goes to two annotators: the double
annotation agreement (§11) is measured on.
"""

from __future__ import annotations

from collections.abc import Sequence

from labeler.core.errors import LabelError
from labeler.core.store import QueryRow


def plan(
    rows: Sequence[QueryRow],
    annotators: Sequence[str],
    *,
    copies: int = 1,
    slice_name: str | None = None,
) -> list[tuple[str, str]]:
    """Round robin over `annotators`, `copies` of each query (those in `slice_name` only)."""
    names = list(dict.fromkeys(a.strip() for a in annotators if a.strip()))
    if not names:
        raise LabelError("name at least one annotator", key="annotators")
    if not 1 <= copies <= len(names):
        raise LabelError(
            f"--copies must be between 1 and the {len(names)} annotator(s) named, got {copies}",
            key="copies",
        )
    chosen = [r for r in rows if slice_name is None or slice_name in r.slices]
    if not chosen:
        where = f" in slice {slice_name!r}" if slice_name else ""
        raise LabelError(f"no queries{where} to assign", key="slice")
    return [
        (row.id, names[(i + j) % len(names)]) for i, row in enumerate(chosen) for j in range(copies)
    ]
