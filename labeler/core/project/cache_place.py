"""Where a project's embedding cache lives (§6, §21): one file, or, in a team project, one
file per account (`<cache folder>/<stem>/<login>/<name>`), each read by the leads' rule in
`evaluator.embedding.accounts`. A plain value, so a command decides the place before it
loads numpy or SQLite (`spanlab label` opens its first screen without them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from labeler.core.corpus.extract.cache import ExtractionCache, account_folder
from labeler.core.display import shown
from labeler.core.errors import ConfigError
from labeler.core.names import name_problem
from labeler.core.project import config
from labeler.core.team.roles import login_name


@dataclass(frozen=True)
class CachePlace:
    """Where a team project's accounts keep their embedding caches."""

    folder: Path
    """The folder holding one folder per account (`.spanlab/embeddings`)."""
    name: str
    """The file's name in each account's folder (`embeddings.db`)."""
    me: str
    """The login running: whose file is written."""
    leads: tuple[str, ...]
    """The leads, whose files are read besides one's own."""
    shared: Path
    """The one file a project without `[team]` keeps: not read here (the group writes it)."""

    def of(self, login: str) -> Path:
        """The cache file of `login` (a name that could not be a folder's is refused)."""
        if (problem := name_problem(login)) is not None:
            raise ConfigError(f"login {shown(repr(login))} {problem}: it names no cache folder",
                              key="embedding_cache")  # fmt: skip
        return self.folder / login / self.name

    @property
    def own(self) -> Path:
        return self.of(self.me)

    def __str__(self) -> str:
        return str(self.own)


CacheWhere = Path | CachePlace | None
"""A cache: one file (as chosen, or a project without a team), a team's accounts, or memory."""


def place_of(proj: config.Project) -> Path | CachePlace:
    """The project's cache: per account with a `[team]` (or a claim of one that does not
    count), one file without, or when the person running chose it (`$SPANLAB_CACHE`)."""
    if (proj.team is None and proj.distrust is None) or os.environ.get(config.CACHE_ENV):
        return proj.embedding_cache
    path = proj.embedding_cache
    leads = proj.team.leads if proj.team is not None else ()
    return CachePlace(path.parent / path.stem, path.name, login_name(), tuple(leads), path)


def own_file(where: CacheWhere) -> Path | None:
    """The one file `where` writes (None: memory)."""
    return where.own if isinstance(where, CachePlace) else where


def extraction_cache(proj: config.Project) -> ExtractionCache | None:
    """The running account's extraction cache, beside the store (`.spanlab/extractions/
    <login>`, §22); None when the login could not name a folder."""
    login = login_name()
    if name_problem(login) is not None:
        return None
    return ExtractionCache(account_folder(proj.db.parent, login))
