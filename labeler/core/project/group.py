"""A project a group shares (§15), as `init` sets it up and `corpus status` reports it:
which group, and for each file spanlab keeps whether the group (and we) may write it.

Built on `sharing` (what is made) and `access` (what is there); this module only knows
which files a project has.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labeler.core.errors import ConfigError, StoreError
from labeler.core.files import sharing
from labeler.core.files.access import Access, fix, look, name_of_group, refused_write
from labeler.core.project.config import CONFIG_NAME, Project
from labeler.core.store import Store
from labeler.core.team.roles import Act, Member

RUNS = ".spanlab/runs"
"""The run folders (evaluator.runs.place says the same for its writers)."""


@dataclass(frozen=True)
class Kept:
    """One file or folder of the project, as it is."""

    what: str
    """Its role (`store`, `store -wal`, `runs`, `embedding cache`, …)."""
    path: Path
    """Where it is."""
    found: Access | None
    """Its owner, mode and access; None when it does not exist yet."""
    fix: str | None
    """The command that makes it writable for the group, when it is not."""


@dataclass(frozen=True)
class Writers:
    """Who may write the project: its group (if shared) and each file."""

    group: str | None
    """The sharing group's name; None for one person's project."""
    why: str | None
    """How the project says it is shared (`setgid folder .spanlab`)."""
    files: tuple[Kept, ...]
    """The store, its WAL and index, runs, the cache, Chroma."""


def folders(proj: Project) -> list[Path]:
    """The folders spanlab writes in: `.spanlab/` and the store's folder."""
    found = [proj.root / ".spanlab", proj.db.parent]
    return [f for i, f in enumerate(found) if f.resolve() not in {g.resolve() for g in found[:i]}]


def prepare(proj: Project) -> None:
    """Make the project's folders (for `init`), the group's when `proj.group` names one."""
    for folder in folders(proj):
        try:
            if proj.group:
                sharing.share_with(folder, proj.group)
            else:
                sharing.make_folder(folder)
        except ValueError as exc:
            raise ConfigError(str(exc), key="group", hint="pick a group from `id`") from None
        except OSError as exc:
            message, hint = refused_write(folder, exc)
            raise StoreError(message, file=str(folder), hint=hint) from None


def _kept(proj: Project) -> list[tuple[str, Path]]:
    db = proj.db
    spanlab = proj.root / ".spanlab"
    return [
        ("store folder", db.parent), ("store", db), ("store -wal", Path(f"{db}-wal")),
        ("store -shm", Path(f"{db}-shm")), ("runs", proj.root / RUNS),
        ("runs index", spanlab / "runs.db"), ("embedding cache", spanlab / "embeddings.db"),
        ("chroma folder", proj.chroma_path), ("chroma db", proj.chroma_path / "chroma.sqlite3"),
    ]  # fmt: skip


def writers(proj: Project) -> Writers:
    """The project's sharing and every file's access, for `corpus status`."""
    share = sharing.share_of(proj.db.parent)
    group = name_of_group(share.gid) if share else proj.group
    why = f"{share.why} {proj.db.parent}" if share else None
    files = []
    for what, path in _kept(proj):
        found = look(path)
        bad = found is not None and (not found.writable or (share and not found.group_writable))
        files.append(Kept(what, path, found, fix(found, share) if found and bad else None))
    return Writers(group, why, tuple(files))


def refuse_reinit(before: Project, after: Project, who: Member) -> bool:
    """`init` where a project is (its spanlab.toml, or a store at either place) is a lead's
    (§20): it rewrites spanlab.toml and may move everyone to another store. Whether it is."""
    there = [before.root / CONFIG_NAME, before.db, after.db]
    if not any(p.exists() for p in there):
        return False
    who.require(Act.INIT)
    return True


def record_init(before: Project, after: Project, who: Member, store: Store) -> None:
    """An event in the store now bound, and in the one it replaces if that is another."""
    payload = {"corpus": str(after.corpus), "store": str(after.db), "was_store": str(before.db),
               "was_corpus": str(before.corpus)}  # fmt: skip
    store.note("project-init", who.name, **payload)
    if before.db.exists() and before.db.resolve() != after.db.resolve():
        old = Store.open(before.db, create=False)
        try:
            old.note("project-init", who.name, **payload)
        finally:
            old.close()
