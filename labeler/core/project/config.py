"""`spanlab.toml`: where the corpus, the store and Chroma live for this working folder (§10).

Flags override the file; the file overrides the defaults. Paths in the file are relative
to the file's folder, so a project can be moved or checked out anywhere.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from labeler.core.corpus.canonical import text_codec
from labeler.core.corpus.files import DEFAULT_RULE, FileRule, file_rule
from labeler.core.errors import ConfigError
from labeler.core.files import sharing
from labeler.core.files.access import refused_write
from labeler.core.files.reading import read_bounded
from labeler.core.project import keys
from labeler.core.team.authority import TEAM_FILE, Authority, decide
from labeler.core.team.roles import Distrust, Team
from labeler.core.team.steering import PROJECT_KEYS, shared_writers
from labeler.core.typed import MAX_CONFIG_FILE, Refusal, number, toml_tree, typed

CONFIG_NAME = "spanlab.toml"
DEFAULT_DB = ".spanlab/labels.db"
DEFAULT_CHROMA = ".spanlab/chroma"
DEFAULT_CACHE = ".spanlab/embeddings.db"
CANDIDATES = "candidates.toml"
"""The project's candidates file in its folder (README, the demo): the app ranks transitions
to label by its cuts."""
CACHE_ENV = "SPANLAB_CACHE"
"""Where the embedding cache lives, over spanlab.toml's `embedding_cache` (CI sets it)."""

_KEYS = keys.names()
"""Every key spanlab.toml may hold, from the registry the reference is written from."""
_GROUP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")
"""A portable Unix group name (`init --group`, §15)."""
MAX_CHROMA_TIMEOUT = 600.0
"""Longest `chroma_timeout` (seconds) spanlab.toml may ask for."""
_FLAGS = keys.flags()
"""Keys that hold a bool; every other key holds a string (or, chroma_timeout, a number)."""
_WANTED = {"chroma_timeout": "a number of seconds"} | {k: "true or false" for k in _FLAGS}
"""How a refusal words the keys that do not hold a string."""


@dataclass(frozen=True)
class Project:
    root: Path
    """The working folder (where spanlab.toml is)."""
    corpus: Path | None = None
    """The corpus folder."""
    db: Path = Path(DEFAULT_DB)
    """The label store."""
    chroma_path: Path = Path(DEFAULT_CHROMA)
    """Embedded Chroma's folder."""
    chroma_url: str | None = None
    """A Chroma server (`http://host:port`), used instead of the embedded one."""
    chroma_timeout: float | None = None
    """Seconds one call to the Chroma server may take (None: the evaluator's default)."""
    embedding: str = "minilm"
    """Default embedding choice (§6)."""
    embedding_cache: Path = Path(DEFAULT_CACHE)
    """The embedding cache (SQLite): $SPANLAB_CACHE, else `embedding_cache`, else the default."""
    encoding: str = "utf-8"
    """Codec of the corpus files."""
    follow_symlinks: bool = False
    """Read what corpus symlinks point to, even outside the folder (`init --follow-symlinks`)."""
    include: FileRule = DEFAULT_RULE
    """Which files of the corpus folder are documents (`include = ["**/*.md"]`)."""
    blind: bool = False
    """Double annotation: each annotator labels (and sees) only their own version (§3)."""
    trim_spans: bool = True
    """Leave whitespace and newlines at a selection's edges out of the span it adds."""
    group: str | None = None
    """The Unix group the project is shared with (`init --group`, §15)."""
    team: Team | None = None
    """`[team]`: the leads and annotators (None: no roles, `--annotator` names anyone, or
    roles that do not count: see `distrust`)."""
    authority: Path | None = None
    """The file `team` and `blind` came from: spanlab.team.toml, or spanlab.toml when it
    passes the same checks (labeler.core.team.authority); None when no file claims them."""
    distrust: Distrust | None = None
    """Why the `[team]`/`blind` the project claims do not count, and the fix (§20)."""
    ignored_claims: tuple[str, ...] = ()
    """`team`/`blind` keys spanlab.toml holds beside spanlab.team.toml: ignored, and said."""
    ignored_steering: tuple[str, ...] = ()
    """Steering keys (labeler.core.team.steering) a group-writable spanlab.toml sets beside
    spanlab.team.toml to another value than the lead's or the default: ignored, and said."""
    unguarded_steering: tuple[str, ...] = ()
    """Steering keys a spanlab.toml another account may write sets in a project without a
    team file (they count: there is no lead), said with `unguarded_why`."""
    unguarded_why: str = ""
    """Who else may write that spanlab.toml (owner, group, mode)."""
    lead_keys: frozenset[str] = frozenset()
    """Steering keys set by a lead's file (spanlab.team.toml, or a spanlab.toml only a lead
    may write): a folder they name outside the project was configured by its owner."""

    @property
    def candidates(self) -> Path:
        """The project's candidates file (it may not exist)."""
        return self.root / CANDIDATES

    def override(self, **flags: Any) -> Project:
        """Apply command-line flags that were given (None means not given)."""
        given = {k: v for k, v in flags.items() if v is not None}
        for key in ("corpus", "db", "chroma_path", "embedding_cache"):
            if key in given:
                given[key] = Path(given[key])
        return replace(self, **given)

    def require_corpus(self) -> Path:
        if self.corpus is None and "corpus" in self.ignored_steering:
            raise ConfigError(
                "no corpus folder configured: in a team project spanlab.toml's `corpus` counts "
                f"only when a lead's file sets it ({TEAM_FILE})",
                file=str(self.root / TEAM_FILE), key="corpus",
                hint=f'a lead adds corpus = "…" to {TEAM_FILE} (or pass --corpus)',
            )  # fmt: skip
        if self.corpus is None:
            raise ConfigError(
                "no corpus folder configured",
                file=str(self.root / CONFIG_NAME),
                key="corpus",
                hint="run `spanlab init CORPUS_DIR` or pass --corpus",
            )
        return self.corpus


@dataclass(frozen=True)
class _Key:
    """A key of spanlab.toml, where the type rule refuses a value."""

    file: str
    """The spanlab.toml read."""
    key: str
    """The key looked at."""

    def at(self, key: str) -> _Key:
        sep = "" if key.startswith("[") or not self.key else "."
        return replace(self, key=f"{self.key}{sep}{key}")

    def refuse(self, refusal: Refusal) -> ConfigError:
        if not refusal.about_type:
            return ConfigError(refusal.message, file=self.file, key=self.key or None)
        wanted = _WANTED.get(self.key, "a string")
        return ConfigError(f"{self.key!r} must be {wanted}", file=self.file, key=self.key)


def load(root: Path) -> Project:
    """Read `root/spanlab.toml` if present: parsed, every key checked, then the project."""
    path = root / CONFIG_NAME
    text, data = _parsed(path) if path.exists() else ("", {})
    _check(path, {k: v for k, v in data.items() if k not in PROJECT_KEYS}, data)
    found = decide(root, data, text, _KEYS)
    data, steered = _steered(root, data, found)

    def rel(key: str, default: str | None) -> Path | None:
        value = data.get(key, default)
        return None if value is None else (root / value)

    return Project(
        root=root,
        corpus=rel("corpus", None),
        db=rel("db", DEFAULT_DB) or root / DEFAULT_DB,
        chroma_path=rel("chroma_path", DEFAULT_CHROMA) or root / DEFAULT_CHROMA,
        chroma_url=data.get("chroma_url"),
        embedding=data.get("embedding", "minilm"),
        embedding_cache=cache_location(root, data.get("embedding_cache")),
        encoding=data.get("encoding", "utf-8"),
        follow_symlinks=data.get("follow_symlinks", False),
        include=file_rule(data["include"], steered.source) if "include" in data else DEFAULT_RULE,
        chroma_timeout=data.get("chroma_timeout"),
        trim_spans=data.get("trim_spans", True),
        group=data.get("group"),
        ignored_steering=steered.ignored,
        unguarded_steering=steered.unguarded,
        unguarded_why=steered.unguarded_why,
        lead_keys=steered.lead_keys,
        **_granted(found),
    )


@dataclass(frozen=True)
class _Steered:
    """Where the steering keys came from (§21)."""

    ignored: tuple[str, ...] = ()
    """Keys of the group's spanlab.toml that count for nothing (and differ from the value used)."""
    lead_keys: frozenset[str] = frozenset()
    """Keys a lead's file set."""
    source: str = CONFIG_NAME
    """The file `include` came from, for its refusals."""
    unguarded: tuple[str, ...] = ()
    """Without a team file: steering keys (not at their defaults) of a spanlab.toml another
    account may write."""
    unguarded_why: str = ""


def _steered(root: Path, data: dict[str, Any], found: Authority) -> tuple[dict[str, Any], _Steered]:
    """spanlab.toml's keys with the steering ones as a team project takes them: from
    spanlab.team.toml first, from spanlab.toml only when it is a lead's alone; without a
    team file, spanlab.toml's as they are (a solo project works as it always did)."""
    own = {k: v for k, v in data.items() if k in PROJECT_KEYS}
    if not found.governed:
        _check(root / CONFIG_NAME, own)
        unguarded, why = _unguarded(root / CONFIG_NAME, own)
        return data, _Steered(source=str(root / CONFIG_NAME), unguarded=unguarded,
                              unguarded_why=why)  # fmt: skip
    team_file = root / TEAM_FILE
    _check(team_file, dict(found.settings))
    own = own if found.shared_steers else {}  # what counts for nothing is not checked either
    _check(root / CONFIG_NAME, own)
    lead = {**own, **found.settings}
    kept = {k: v for k, v in data.items() if k not in PROJECT_KEYS} | lead
    ignored = tuple(
        k for k in PROJECT_KEYS if k in data and data[k] != lead.get(k, _DEFAULTS.get(k))
    )
    source = team_file if "include" in found.settings else root / CONFIG_NAME
    return kept, _Steered(ignored, frozenset(lead), str(source))


def _unguarded(path: Path, own: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """The steering keys `own` sets away from their defaults when another account may write
    `path` (its owner, or its group with someone else in it), and why; else nothing."""
    keys = tuple(k for k in PROJECT_KEYS if k in own and own[k] != _DEFAULTS.get(k, _UNSET))
    if not keys:
        return (), ""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return (), ""
    why = shared_writers(info)
    return (keys, why) if why else ((), "")


_UNSET = object()
"""No default: any value of the key steers."""


_DEFAULTS: dict[str, Any] = {
    "db": DEFAULT_DB, "chroma_path": DEFAULT_CHROMA, "embedding_cache": DEFAULT_CACHE,
    "embedding": "minilm", "encoding": "utf-8", "follow_symlinks": False,
}  # fmt: skip
"""Steering keys' defaults as spanlab.toml spells them: `init` writes some of them, which
then steer nothing and are not warned of."""


def _parsed(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and its TOML tree, bounded; any failure names the file."""
    try:
        text = read_bounded(path, MAX_CONFIG_FILE, _Key(str(path), "")).decode("utf-8")
        return text, toml_tree(text, _Key(str(path), ""))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"malformed TOML: {exc}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError("not valid UTF-8", file=str(path), offset=exc.start) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _check(path: Path, data: dict[str, Any], every: dict[str, Any] | None = None) -> None:
    """Every key (of `every`, else of `data`) known, and each of `data` of its type; the
    first one that is not, named."""
    unknown = sorted(set(data if every is None else every) - _KEYS)
    if unknown:
        raise ConfigError(
            f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})",
            file=str(path),
            key=unknown[0],
        )
    for key, value in data.items():
        if key == "team":
            continue
        if key == "include":
            file_rule(value, str(path))
        elif key == "chroma_timeout":
            number(value, float, _Key(str(path), key), low=0.1, high=MAX_CHROMA_TIMEOUT)
        else:
            typed(value, bool if key in _FLAGS else str, _Key(str(path), key))
    if "encoding" in data:
        text_codec(data["encoding"], file=str(path), key="encoding")
    if "group" in data and not _GROUP_NAME.fullmatch(data["group"]):
        raise ConfigError("'group' must be a Unix group name", file=str(path), key="group")


def _granted(found: Authority) -> dict[str, Any]:
    """Project's fields for what `decide` found (§20)."""
    return {"team": found.team, "blind": found.blind, "authority": found.file,
            "distrust": found.distrust, "ignored_claims": found.ignored}  # fmt: skip


def cache_location(root: Path, configured: str | None) -> Path:
    """$SPANLAB_CACHE (relative to the working folder), else spanlab.toml's, else the default."""
    chosen = os.environ.get(CACHE_ENV) or configured or DEFAULT_CACHE
    return root / Path(chosen).expanduser()


def write(project: Project) -> Path:
    """Write spanlab.toml with paths relative to the root where possible."""
    path = project.root / CONFIG_NAME
    try:
        sharing.write_text(path, "\n".join(_lines(project)) + "\n")
    except OSError as exc:
        message, hint = refused_write(path, exc)
        raise ConfigError(message, file=str(path), hint=hint) from None
    return path


def _entry(key: str, value: str) -> str:
    # A JSON string is a valid TOML basic string: quotes, backslashes and control
    # characters in a path survive the round trip (a Python repr does not).
    return f"{key} = {json.dumps(value, ensure_ascii=False)}"


def _lines(project: Project) -> list[str]:
    """spanlab.toml's lines for `project`: a default left out, [team] last."""

    def show(p: Path) -> str:
        try:
            return p.resolve().relative_to(project.root.resolve()).as_posix()
        except ValueError:
            return str(p.resolve())

    lines = [_entry("corpus", show(project.corpus))] if project.corpus is not None else []
    lines += [_entry("db", show(project.db)), _entry("chroma_path", show(project.chroma_path))]
    if project.chroma_url:
        lines.append(_entry("chroma_url", project.chroma_url))
    lines.append(_entry("embedding", project.embedding))
    if project.encoding != "utf-8":
        lines.append(_entry("encoding", project.encoding))
    if project.chroma_timeout is not None:
        lines.append(f"chroma_timeout = {project.chroma_timeout:g}")
    own = project.distrust is None and (project.authority or Path(CONFIG_NAME)).name == CONFIG_NAME
    if project.blind and own:  # what spanlab.team.toml grants stays there
        lines.append("blind = true")
    if project.follow_symlinks:
        lines.append("follow_symlinks = true")
    if project.include.include:
        lines.append(f"include = {json.dumps(list(project.include.include), ensure_ascii=False)}")
    if not project.trim_spans:
        lines.append("trim_spans = false")
    if project.group:
        lines.append(_entry("group", project.group))
    if project.team is not None and own:  # a table comes after every top-level key
        lines += ["", "[team]", f"leads = {json.dumps(list(project.team.leads))}",
                  f"annotators = {json.dumps(list(project.team.annotators))}"]  # fmt: skip
    return lines
