"""What every `spanlab` command shares: its options, written once, and the error wrapper.

Domain errors become one message on stderr and exit code 2 (Ctrl-C: 130); stdout carries
data only; every line printed passes `say` (terminal-safe). An option's help text lives
here and nowhere else.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.source import CorpusSource
from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.names import check_name
from labeler.core.project import config
from labeler.core.project import folders as project_folders
from labeler.core.project.cache_place import extraction_cache
from labeler.core.secrets import redact
from labeler.core.store import Store
from labeler.core.store.foreign import describe
from labeler.core.team import authority, steering
from labeler.core.team import roles as team
from labeler.core.team.roles import Act, Member
from labeler.core.team.visibility import Sight

F = TypeVar("F", bound=Callable[..., Any])

CorpusOpt = Annotated[Path | None, typer.Option("--corpus", help="Corpus folder.")]
DbOpt = Annotated[Path | None, typer.Option("--db", help="Label store (SQLite) path.")]
AnnotatorOpt = Annotated[
    str | None,
    typer.Option(
        "--annotator",
        help="Your name on edits (default: your login). With [team] in spanlab.toml only "
        "your login, or `project` for a lead acting for the project.",
    ),
]
ThemeOpt = Annotated[str | None, typer.Option("--theme", help="A theme from themes/ by name.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
ChromaOpt = Annotated[str | None, typer.Option("--chroma-url", help="Chroma server URL.")]
RetrieverOpt = Annotated[
    str | None,
    typer.Option(help="Override the retriever: chroma | exact | lexical | hybrid | ranked | http."),
]


def say(text: str, *, err: bool = False) -> None:
    """Print a line of output; text from outside (questions, names, paths, a server's
    words) passes `shown`, so no control or bidi character reaches the terminal raw; a
    message (stderr) passes `redact` too, so no credential in a URL is shown (§21)."""
    typer.echo(shown(redact(text) if err else text), err=err)


def fail(message: str) -> None:
    say(f"error: {message}", err=True)


def handles_errors(fn: F) -> F:
    """Turn domain errors into a message on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SpanlabError as exc:
            fail(str(exc))
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            fail("interrupted: every edit so far is committed and no half-built index is marked "
                 "complete; run the command again to carry on")  # fmt: skip
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def member(proj: config.Project, given: str | None, act: Act | None = None) -> Member:
    """Who runs the command: the login (`--annotator` only as `[team]` allows), whose name
    must be a name (§13), refused when `[team]` gives their role no right to `act`."""
    if given:
        check_name(given, "annotator name", key="--annotator")
    who = team.member(proj.team, given, distrust=proj.distrust)
    if not given:
        hint = "pass --annotator" if proj.team is None and proj.distrust is None else None
        check_name(who.name, "annotator name (your login name)", hint=hint)
    if act is not None:
        who.require(act)
    return who


def sight(proj: config.Project) -> Sight:
    """What the login may see of others' versions in this project (blind, §20)."""
    return Sight(team.member(proj.team, None, distrust=proj.distrust), proj.blind)


def hidden_queries(proj: config.Project) -> frozenset[str]:
    """Queries holding another's undecided version, which blind keeps from the login's
    views of a run (§20); none without a store."""
    if not proj.blind or not proj.db.exists():
        return frozenset()
    return sight(proj).hidden(checked(Store.open_for_reading(proj.db)))


_SAID: set[str] = set()
"""Stores whose writers' heads this command has already spoken of."""


def checked(store: Store) -> Store:
    """`store`, its writers' heads said once per command (§21): a store that lacks some
    writer's writes (rolled back, replaced) is named on stderr; reading goes on, every write
    refuses until `spanlab labels restore`."""
    if store.path not in _SAID:
        _SAID.add(store.path)
        for line in store.heads.warnings():
            say(f"warning: {line}", err=True)
    return store


def private_files(proj: config.Project, query_ids: Collection[str], out: Path) -> bool:
    """Whether what the login writes about `query_ids` goes to `out` as theirs alone (a
    lead's file holding versions that wait, §21: `Sight.keeps_private`); says so when it
    does."""
    if not proj.blind or proj.team is None or not proj.db.exists():
        return False
    if not sight(proj).keeps_private(Store.open_for_reading(proj.db), query_ids):
        return False
    say(f"note: {out} is yours alone (mode 0600): it holds versions that wait for a "
        "decision, which blind keeps from the group", err=True)  # fmt: skip
    return True


def project(corpus: Path | None = None, db: Path | None = None) -> config.Project:
    """spanlab.toml of the working folder, with the flags laid over it; its folders and
    the person running checked first (§20)."""
    proj = project_folders.opened(Path.cwd(), corpus=corpus, db=db)
    if proj.ignored_claims:  # a member may have written them: the lead hears of it (§20)
        keys = ", ".join(proj.ignored_claims)
        say(f"warning: spanlab.toml sets {keys}, ignored: roles and blind count only from "
            f"{authority.TEAM_FILE}; a lead removes them from spanlab.toml", err=True)  # fmt: skip
    if proj.ignored_steering:  # §21: a member may have written them to steer a lead's command
        say(steering.ignored_warning(proj.ignored_steering, config.CONFIG_NAME,
                                     authority.TEAM_FILE), err=True)  # fmt: skip
    if proj.unguarded_steering:  # no lead yet: a member's keys count, so the runner hears it
        warning = steering.unguarded_warning(
            proj.unguarded_steering, config.CONFIG_NAME, proj.unguarded_why, authority.TEAM_FILE
        )
        say(warning, err=True)
    return proj


def corpus_source(proj: config.Project) -> CorpusSource:
    """The corpus folder and how spanlab.toml says to read it."""
    return CorpusSource(
        proj.require_corpus(), encoding=proj.encoding, follow_symlinks=proj.follow_symlinks,
        rule=proj.include, cache=extraction_cache(proj),
    )  # fmt: skip


def read_corpus(proj: config.Project) -> Corpus:
    return corpus_source(proj).read()


def open_project(
    corpus: Path | None, db: Path | None, *, reading: bool = False
) -> tuple[config.Project, Corpus, Store, binding.CorpusStatus]:
    """Read the corpus as it is now, open the store and compare the two (§8).

    A `reading` command also works on a store it may not write (opened read-only, then
    compared without rebinding).
    """
    proj = project(corpus, db)
    docs = read_corpus(proj)
    store = checked(
        Store.open_for_reading(proj.db) if reading else Store.open(proj.db, create=False)
    )
    if store.foreign:
        say(f"warning: {proj.db}: the label store holds {describe(store.foreign)}, which "
            "spanlab did not create: reading goes on, every write refuses; see "
            "`spanlab labels audit`", err=True)  # fmt: skip
    status = binding.check(store, docs) if store.read_only else binding.sync(store, docs)
    return proj, docs, store, status
