"""`labels export` as one library call: which queries go to the file, what the file holds,
and the file's own sha256, so the line printed describes the file written (§14).

Every format starts from the same decided labels (adjudicated or single-version, §3); a
query waiting for adjudication goes to Label Studio as one annotation per version, and is
left out, counted, everywhere else. Writers say what they left out and why.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.files import sharing
from labeler.core.formats import label_studio
from labeler.core.formats._common import flattened, left_out
from labeler.core.labels import labelset
from labeler.core.progress import Advance, TaskFactory, no_task
from labeler.core.store import Store
from labeler.core.team.visibility import BLIND_WHY, Sight
from labeler.core.values import Query


@dataclass(frozen=True)
class Exported:
    """What an export wrote."""

    path: Path
    """The file."""
    queries: int
    """Queries the file holds."""
    records: int
    """Records (tasks, lines, rows) it holds; the queries for the spanlab format."""
    sha256: str
    """The file's own sha256."""
    label_set_hash: str
    """The label set's hash (§4), which eval records."""
    left_out: tuple[tuple[str, int], ...] = ()
    """(what, how many queries) for queries the file does not hold: "N {what}"."""
    notes: tuple[str, ...] = ()
    """What the target tool should know, or will do differently."""
    drafts: tuple[str, ...] = ()
    """Queries with no evidence that are not abstentions (eval leaves them out)."""
    private: bool = False
    """Written for its writer alone (0600): it holds versions blind keeps from the group."""


def export_file(
    store: Store,
    corpus: Corpus,
    out: Path,
    fmt: str,
    names: label_studio.Names | None = None,
    sight: Sight | None = None,
    task: TaskFactory = no_task,
) -> Exported:
    """Write the store's labels to `out` in `fmt`, as `sight` may see them (None: all);
    refuses while any span is stale. `task` shows its steps: read, written, hashed."""
    with task(f"exporting to {out.name}: read, write, hash", 3) as advance:
        return _export(store, corpus, out, fmt, names, sight, advance)


def _export(
    store: Store,
    corpus: Corpus,
    out: Path,
    fmt: str,
    names: label_studio.Names | None,
    sight: Sight | None,
    advance: Advance,
) -> Exported:
    withheld = sight.withheld(store) if sight is not None else frozenset()
    data = labelset.export(store, corpus, withheld)
    advance(1)
    ids = [str(q["id"]) for q in data["queries"]]
    ids += store.waiting() if fmt == "label-studio" else []  # it keeps each waiting version
    private = sight is not None and sight.keeps_private(store, ids)
    with sharing.private_files(private):
        done = _write(store, corpus, out, fmt, names, data, withheld, advance)
    return dataclasses.replace(done, private=private)


def _write(
    store: Store,
    corpus: Corpus,
    out: Path,
    fmt: str,
    names: label_studio.Names | None,
    data: dict[str, Any],
    withheld: frozenset[str],
    advance: Advance,
) -> Exported:
    waiting_n = int(data.pop("waiting_for_adjudication", 0))
    drafts = tuple(q["id"] for q in data["queries"] if not q["abstain"] and not q["evidence"])
    waits: tuple[tuple[str, int], ...] = (
        (
            "double-annotated quer(y/ies) wait for adjudication and are not exported "
            f"({named(store.waiting() if waiting_n else [])}; adjudicate them: "
            "`spanlab adjudicate`)",
            waiting_n,
        ),
    )
    if withheld:  # a non-lead's export: decided queries only (§20), the waiting among them
        waits = ((f"quer(y/ies) wait for a decision and are not exported: {BLIND_WHY}",
                  len(withheld)),)  # fmt: skip
    if fmt == "spanlab":
        labelset.write_json(data, out)
        advance(1)
        held, sha = len(data["queries"]), _sha256(out)
        advance(1)
        return Exported(out, held, held, sha, data["label_set_hash"],
                        _counted(waits), drafts=drafts)  # fmt: skip
    queries, waiting = _decided(store)
    queries = [q for q in queries if q.id not in withheld]
    shown = [q for q in waiting if q not in withheld]
    if not queries and (waiting or withheld) and (fmt != "label-studio" or not shown):
        raise _all_waiting(len(set(waiting) | withheld), fmt, out)
    if fmt in formats.EVIDENCE_ONLY and not any(q.evidence for q in queries):
        raise _nothing_held(queries, len(set(waiting) | withheld), fmt, out)
    if fmt == "label-studio":
        pending = [(store.query(q), list(store.versions([q]).get(q, {}).values()))
                   for q in shown]  # fmt: skip
        wrote = label_studio.write(queries, corpus, out, names=names or label_studio.Names(),
                                   waiting=pending)  # fmt: skip
        waits = waits if withheld else ()
    else:
        got = formats.get(fmt).write(queries, corpus, out)
        wrote = got or formats.Wrote(len(queries), len(queries))
    notes = (*wrote.warnings, *_flattened(fmt, queries), *_facts_left(fmt, queries))
    advance(1)
    sha = _sha256(out)
    advance(1)
    return Exported(out, wrote.queries, wrote.records, sha, data["label_set_hash"],
                    _counted((*wrote.left_out, *waits)), notes, drafts)  # fmt: skip


def _flattened(fmt: str, queries: list[Query]) -> tuple[str, ...]:
    """A format that cannot hold groups (§18) flattens them, and says how many."""
    n = 0 if fmt in formats.GROUPS else flattened(queries)
    if not n:
        return ()
    return (f"{n} group(s) of alternatives flattened: {fmt} cannot say 'either copy will do', "
            "so every alternative is written as evidence of its own",)  # fmt: skip


def _facts_left(fmt: str, queries: list[Query]) -> tuple[str, ...]:
    """A format that cannot hold facts (§23) leaves them out, and says whose."""
    ids = [] if fmt in formats.FACTS else [q.id for q in queries if q.facts]
    if not ids:
        return ()
    return (f"{len(ids)} quer(y/ies) carry facts {fmt} cannot hold ({named(ids)}): left out; "
            "--format spanlab, label-studio or doccano keeps them",)  # fmt: skip


def _decided(store: Store) -> tuple[list[Query], list[str]]:
    if store.count("versions"):
        return store.decided_queries()
    return store.queries(), []


def _all_waiting(n: int, fmt: str, out: Path) -> LabelError:
    """Nothing decided to write: an empty file (exit 0) would look like an export (§14)."""
    return LabelError(
        f"all {n} quer(y/ies) wait for adjudication and {fmt} cannot hold undecided versions; "
        "nothing was written",
        file=str(out),
        hint="adjudicate them (`spanlab adjudicate`), or export with --format label-studio, "
        "which keeps one annotation per version",
    )


def _nothing_held(queries: list[Query], waiting: int, fmt: str, out: Path) -> LabelError:
    """No query the format can hold (none has evidence): an empty file (exit 0, "wrote 0
    queries") would look like an export; nothing is written, and why is said."""
    why = [f"{n} {what}" for what, n in left_out(queries)]
    if waiting:
        why.append(f"{waiting} quer(y/ies) wait for a decision")
    return LabelError(
        f"no query has evidence {fmt} can hold ({'; '.join(why) or 'the store holds no query'}); "
        "nothing was written",
        file=str(out),
        hint=f"{fmt} holds evidence spans only: label some, or export --format spanlab, which "
        "keeps abstentions and drafts",
    )


def named(ids: Sequence[str], most: int = 10) -> str:
    """`q-0004, q-0007` (the first `most`, then how many more): which queries, not only
    how many, an export leaves out (§21)."""
    more = f" and {len(ids) - most} more" if len(ids) > most else ""
    return ", ".join(ids[:most]) + more


def _counted(kinds: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    return tuple((why, n) for why, n in kinds if n)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
