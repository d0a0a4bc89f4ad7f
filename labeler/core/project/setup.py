"""`spanlab init` as one library call (§10, §15, §20): who may set a project up again, the
corpus read whole before anything is made, the project's folders (the group's), the store
bound to the corpus hash and spanlab.toml written last."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labeler.core.anchoring import binding
from labeler.core.anchoring.binding import CorpusStatus
from labeler.core.corpus.folder import Corpus
from labeler.core.project import config, folders, group
from labeler.core.project.cache_place import extraction_cache
from labeler.core.project.config import Project
from labeler.core.store import Store
from labeler.core.team import roles


@dataclass(frozen=True)
class Initialised:
    """What `init` made, for the command to report."""

    project: Project
    """The project as written to spanlab.toml."""
    corpus: Corpus
    """The corpus as read."""
    store: Store
    """The store, bound to the corpus."""
    status: CorpusStatus
    """How the store's binding met the corpus (spans waiting for review)."""
    lookalikes: tuple[str, ...]
    """Documents a non-UTF-8 codec may have garbled: they decode as UTF-8 too."""


def init_project(
    cwd: Path,
    corpus_dir: Path,
    *,
    db: Path | None,
    encoding: str,
    follow_symlinks: bool,
    share_with: str | None,
) -> Initialised:
    """Set up (or, a lead, set up again) the project in `cwd` over `corpus_dir`."""
    proj = folders.opened(cwd, corpus=corpus_dir, db=db, encoding=encoding,
                          follow_symlinks=follow_symlinks, group=share_with)  # fmt: skip
    before = config.load(cwd)
    who = roles.member(before.team, None, distrust=before.distrust)
    again = group.refuse_reinit(before, proj, who)
    docs = Corpus.read(corpus_dir, encoding=encoding, follow_symlinks=follow_symlinks,
                       rule=proj.include, cache=extraction_cache(proj),
                       ).require_documents(proj.include)  # fmt: skip
    group.prepare(proj)
    store = Store.open(proj.db)
    status = binding.open_or_bind(store, docs)
    config.write(proj)
    if again:
        group.record_init(before, proj, who, store)
    return Initialised(proj, docs, store, status, utf8_lookalikes(corpus_dir, docs, encoding))


def utf8_lookalikes(root: Path, docs: Corpus, encoding: str) -> tuple[str, ...]:
    """Documents that a non-UTF-8 codec may have garbled: they decode as UTF-8 too."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        return ()
    found = []
    for doc in docs:
        raw = (root / doc.id).read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if not raw.isascii():
            found.append(doc.id)
    return tuple(found)
