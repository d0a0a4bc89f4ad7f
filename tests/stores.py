"""A store copied as a backup is copied: the file and its writers' records beside it.

Without `labels.db.heads` a copy reads as a store rolled back behind its writers' backs
(§21): its writes refuse until a lead forgets the records. Fixtures that start from a
template store copy both.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from labeler.core.store.heads import folder_of


def copy_store(source: Path, target: Path) -> None:
    """Copy the store at `source` to `target`, with its writers' records when it has any."""
    shutil.copyfile(source, target)
    records, beside = folder_of(str(source)), folder_of(str(target))
    if records is not None and beside is not None and records.is_dir():
        shutil.copytree(records, beside, dirs_exist_ok=True)
