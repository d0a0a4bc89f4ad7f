"""Who may do what in a team's project (§15): identity from the login, roles from `[team]`.

One rule, headless, that the CLI, every screen of the app and the store ask: a `Member` is
the login, the name edits carry and the team (from the file labeler.core.team.authority trusts);
`require` refuses an act the member's role does not allow, naming the role and the line
that grants it, or, while the roles do not count (§20), saying why and the fix.
"""

from __future__ import annotations

import getpass
import json
import os
import pwd
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePath
from typing import Any

from labeler.core.errors import ConfigError, SpanlabError

PROJECT = "project"
"""The name a lead passes as `--annotator` to act for the project (imports, assignments)."""
ROLES = ("leads", "annotators")
"""The keys of `[team]`, each a list of login names."""
MAX_MEMBERS = 1000
"""Most names one `[team]` list may hold."""
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")
"""A login name as useradd allows it (and nothing a terminal or a path could misread)."""


class Act(Enum):
    """What a role may be asked to do; the value words it in a refusal."""

    LABEL = "labelling"
    IMPORT = "importing labels"
    ASSIGN = "assigning queries"
    ADJUDICATE = "adjudicating"
    REVIEW = "reviewing stale spans"
    EVAL = "running evals"
    INIT = "running init over an existing project"
    DELETE_OTHERS = "deleting another's query"
    REWORD_OTHERS = "rewording another's query"
    RESTORE_OTHERS = "putting back another's deleted query"
    FORGET_RECORDS = "forgetting writers' records that are gone"


class TeamRefusal(SpanlabError):
    """The login's role does not allow the act, or `--annotator` names someone else."""


@dataclass(frozen=True)
class Distrust:
    """Why the project's `[team]`/`blind` do not count (§20), and the commands that fix it."""

    why: str
    """What is wrong, naming the file, its owner and mode."""
    fix: str
    """The commands a lead (or root) runs so the roles count."""


@dataclass(frozen=True)
class Team:
    """`[team]` of spanlab.toml: who leads, who annotates, and where the file says so."""

    leads: tuple[str, ...]
    """Login names of the leads."""
    annotators: tuple[str, ...]
    """Login names of the annotators."""
    file: str = "spanlab.toml"
    """The spanlab.toml read."""
    lines: tuple[int | None, int | None] = (None, None)
    """The lines of `leads` and `annotators` in it (None: not found)."""

    def role(self, login: str) -> str | None:
        """`lead`, `annotator`, or None for someone not on the team."""
        if login in self.leads:
            return "lead"
        return "annotator" if login in self.annotators else None

    def setting(self, key: str) -> str:
        """`spanlab.toml line 7: leads = ["lead"]`, the setting that grants a role."""
        names = self.leads if key == "leads" else self.annotators
        line = self.lines[ROLES.index(key)]
        name = PurePath(self.file).name
        where = f"{name} line {line}" if line is not None else f"{name} [team]"
        return f"{where}: {key} = {json.dumps(list(names))}"


@dataclass(frozen=True)
class Member:
    """The person at the keyboard: their login, the name on their edits, their team."""

    login: str
    """The Unix login running spanlab."""
    name: str
    """Whose name edits carry: the login, `project` (a lead acting for it), or, without a
    `[team]`, whatever `--annotator` said."""
    team: Team | None = None
    """The project's team (None: no `[team]`, everyone may do everything)."""
    distrust: Distrust | None = None
    """Set when the project claims roles or `blind` from a file a non-lead could have
    written (§20): then every act is refused, with the fix."""

    @property
    def lead(self) -> bool:
        """A lead of a team whose file counts (False without a `[team]`, or while distrusted)."""
        trusted = self.distrust is None and self.team is not None
        return trusted and self.team is not None and self.team.role(self.login) == "lead"

    def refusal(self, act: Act) -> str | None:
        """Why this member may not `act` (None: they may)."""
        if self.distrust is not None:
            return f"{self.distrust.why}; {act.value} needs roles that count"
        if self.team is None:
            return None
        role = self.team.role(self.login)
        if role == "lead" or (role == "annotator" and act is Act.LABEL):
            return None
        who = f"{self.login} is an annotator" if role else f"{self.login} is not on the team"
        key = "annotators" if act is Act.LABEL else "leads"
        whom = "annotators and leads" if act is Act.LABEL else "leads"
        return f"{who}; {act.value} is for {whom} ({self.team.setting(key)})"

    def require(self, act: Act) -> None:
        """Raise TeamRefusal when the member's role does not allow `act`."""
        why = self.refusal(act)
        if why is not None:
            fix = self.distrust.fix if self.distrust else None
            raise TeamRefusal(why, hint=fix or "ask a lead, or a lead adds you to [team]")


def refuse_outsiders(team: Team | None, names: Sequence[str]) -> None:
    """With a `[team]`, queues go only to its members (a typo would fill a queue nobody sees)."""
    if team is None:
        return
    outside = [n for n in names if team.role(n) is None]
    if outside:
        raise TeamRefusal(
            f"{outside[0]!r} is not on the team; queues are for its members "
            f"({team.setting('annotators')})",
            hint=f"add them to [team] in {PurePath(team.file).name}, or check the spelling",
        )


def login_name() -> str:
    """The login of the process's user (the uid, not `$USER`, which anyone can set)."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a uid with no passwd entry (a container): the session's name
        try:
            return getpass.getuser()
        except (KeyError, OSError):
            return os.environ.get("USER", "annotator")


def member(
    team: Team | None,
    given: str | None,
    login: str | None = None,
    *,
    distrust: Distrust | None = None,
) -> Member:
    """Who is acting: with a `[team]`, `given` (`--annotator`) may name only the login, or
    `project` for a lead; without one, `given` names anyone (the login by default). While
    the roles are `distrust`ed, `given` may name only the login."""
    login = login or login_name()
    if (team is None and distrust is None) or given is None or given == login:
        return Member(login, given or login, team, distrust)
    if team is not None and distrust is None and given == PROJECT and team.role(login) == "lead":
        return Member(login, PROJECT, team)
    if given == PROJECT:
        why = f"{login} is not a lead; acting as the project is for leads"
        why += f" ({team.setting('leads')})" if team is not None and distrust is None else ""
        raise TeamRefusal(why, key="--annotator", hint="leave --annotator out")
    raise TeamRefusal(
        f"--annotator {given!r}: with a [team] in spanlab.toml, edits carry your login ({login})",
        key="--annotator",
        hint=f"leave --annotator out (a lead may pass --annotator {PROJECT})",
    )


def read_team(value: Any, text: str, file: str, top: Collection[str] = ()) -> Team:
    """`[team]` as parsed from `text` (the file's TOML), checked whole; `top` are the
    file's top-level keys, which a refusal says belong above `[team]`."""

    def refuse(key: str, message: str) -> ConfigError:
        return ConfigError(message, file=file, key=f"team.{key}", line=key_line(text, key))

    if not isinstance(value, dict):
        raise ConfigError("'team' must be a table: [team]", file=file, key="team")
    unknown = sorted(set(value) - set(ROLES))
    if unknown:
        error = refuse(
            unknown[0], f"unknown key {unknown[0]!r} in [team] (known: leads, annotators)"
        )
        if unknown[0] in top:
            error.hint = (
                f"move {unknown[0]} above [team]: a key after a table's header is the table's"
            )
        raise error
    lists = {key: _names(value.get(key, []), key, refuse) for key in ROLES}
    both = sorted(set(lists["leads"]) & set(lists["annotators"]))
    if both:
        raise refuse("annotators", f"{both[0]!r} is in both leads and annotators; one role each")
    if not lists["leads"]:
        raise refuse("leads", "[team] names no lead: nobody could import, assign or adjudicate")
    lines = (key_line(text, "leads"), key_line(text, "annotators"))
    return Team(tuple(lists["leads"]), tuple(lists["annotators"]), file, lines)


def _names(value: Any, key: str, refuse: Callable[[str, str], ConfigError]) -> list[str]:
    if not isinstance(value, list):
        raise refuse(key, f"'team.{key}' must be a list of login names, got {type(value).__name__}")
    if len(value) > MAX_MEMBERS:
        raise refuse(key, f"'team.{key}' holds {len(value)} names; at most {MAX_MEMBERS}")
    for name in value:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            shown = json.dumps(name)[:80] if isinstance(name, str) else type(name).__name__
            raise refuse(key, f"'team.{key}' holds {shown}, not a login name "
                              "(letters, digits, '.', '_', '-'; at most 64)")  # fmt: skip
        if name == PROJECT:
            raise refuse(key, f"{PROJECT!r} is reserved: a lead acts for the project by that name")
    twice = sorted({n for n in value if value.count(n) > 1})
    if twice:
        raise refuse(key, f"'team.{key}' names {twice[0]!r} twice")
    return list(value)


def key_line(text: str, key: str) -> int | None:
    """The 1-based line where `[team]` sets `key` (or dotted `team.key`), None if not found."""
    table = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = re.fullmatch(r"\[\s*([^\]]*?)\s*\]\s*(#.*)?", line)
        if header:
            table = header.group(1)
            continue
        if table == "team" and re.match(rf"['\"]?{re.escape(key)}['\"]?\s*=", line):
            return number
        if table == "" and re.match(rf"team\s*\.\s*{re.escape(key)}\s*=|team\s*=", line):
            return number
    return None
