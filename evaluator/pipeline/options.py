"""How a run is carried out (where its indexes and cache live), apart from what it measures.

The candidates file fixes what is measured; these options only decide where and how
loudly, so two runs with different options and one candidates file measure the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labeler.core.project.cache_place import CacheWhere


@dataclass(frozen=True)
class RunOptions:
    include_text: bool = False
    """Allow document, chunk and query text in the written run."""
    chroma_url: str | None = None
    """Use a Chroma server instead of the embedded client."""
    chroma_path: Path | None = None
    """Embedded Chroma's folder."""
    chroma_timeout: float | None = None
    """Seconds one call to a Chroma server may take (None: the default)."""
    cache_path: CacheWhere = None
    """The embedding cache (SQLite, or a team's accounts' files, §21); None: in memory."""
    check_ann: bool = False
    """Also rank with the exact retriever and report top-k agreement with Chroma."""
    latency: bool = False
    """Time warm query passes (§17) though no gate asks for latency (`--latency`)."""
    progress: bool | None = None
    """Force progress bars on or off (None: on a TTY outside CI)."""
