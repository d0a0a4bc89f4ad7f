"""Where `[team]` and `blind` may come from (§20): a file no member but a lead could have
written, checked as OpenSSH's StrictModes checks `authorized_keys`, since in a shared project
the group writes spanlab.toml and one `sed` there would make anyone a lead.

The roles live in `spanlab.team.toml` beside spanlab.toml (spanlab.toml's own `[team]` and
`blind` count only when spanlab.toml itself passes the same checks: a one-person project).
The file counts when it is a regular file (read with O_NOFOLLOW), writable by its owner
alone, owned by root or by the owner of the project folder, that owner a lead it names,
and when every folder from the project up to `/` is owned by root or a lead and is not
writable by group or others unless sticky (`chmod +t`: then nobody renames or removes a
file they do not own). A claim that fails is not ignored: every act a role grants is
refused, the message naming the file, its owner and mode and the commands that fix it.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import pwd
import stat
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labeler.core.errors import ConfigError
from labeler.core.files.access import name_of_group, name_of_user
from labeler.core.files.reading import kind_of
from labeler.core.team.roles import Distrust, Team, read_team
from labeler.core.team.steering import PROJECT_KEYS
from labeler.core.typed import MAX_CONFIG_FILE, Refusal, toml_tree, typed

TEAM_FILE = "spanlab.team.toml"
"""The lead's file beside spanlab.toml: `[team]`, `blind` and the settings that steer (§21)."""
CLAIMS = ("team", "blind")
"""The keys that grant or withhold sight and roles."""
TEAM_KEYS = (*CLAIMS, *PROJECT_KEYS)
"""What the team file may hold: the claims and spanlab.toml's steering keys."""
_Found = tuple[str | None, str | None]
"""What is wrong (None: nothing) and the command that fixes it."""


@dataclass(frozen=True)
class Authority:
    """The project's roles and blindness, and whether they can be trusted."""

    team: Team | None
    """The leads and annotators (None: no roles, or roles that do not count)."""
    blind: bool
    """Blind double annotation (on whenever a claim does not count: closed, not open)."""
    file: Path | None
    """The file they came from (None: neither file claims any)."""
    distrust: Distrust | None
    """Why the claim does not count, with the fix (None: it counts, or there is none)."""
    ignored: tuple[str, ...] = ()
    """Claims spanlab.toml makes beside a team file: they count for nothing, and a lead
    should hear of them (a member may have written them)."""
    governed: bool = False
    """A team file is there: what steers a command counts only from a lead's file (§21)."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The steering keys the team file sets (empty unless it counts)."""
    shared_steers: bool = True
    """Whether spanlab.toml's own steering keys count: always without a team file, else
    only when spanlab.toml passes the team file's rule (a lead's alone)."""


@dataclass(frozen=True)
class _Where:
    """The team file being read, for the type rule's refusals."""

    file: str
    """Its path."""
    key: str = ""
    """The key looked at."""

    def at(self, key: str) -> _Where:
        return _Where(self.file, f"{self.key}.{key}" if self.key else key)

    def refuse(self, refusal: Refusal) -> ConfigError:
        message = f"{self.key!r} must be true or false" if refusal.about_type else refusal.message
        return ConfigError(message, file=self.file, key=self.key or None)


def decide(root: Path, shared: Mapping[str, Any], text: str, top: Collection[str]) -> Authority:
    """The roles of the project at `root`: from spanlab.team.toml when there is one, else
    from spanlab.toml (`shared`, its tree, and `text`; `top` its known keys)."""
    own = root / TEAM_FILE
    if os.path.lexists(own):
        ignored = tuple(key for key in CLAIMS if key in shared)
        found = _from_team_file(own)
        steers = _leads_alone(root / "spanlab.toml", found.team)
        return dataclasses.replace(found, ignored=ignored, governed=True, shared_steers=steers)
    if not any(key in shared for key in CLAIMS):
        return Authority(None, False, None, None)
    path = root / "spanlab.toml"
    team = read_team(shared["team"], text, str(path), top) if "team" in shared else None
    blind = bool(shared.get("blind", False))
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise ConfigError(f"cannot look at: {exc.strerror}", file=str(path)) from None
    distrust = _problem(path, info, team, shared=True)
    if distrust is not None:
        return Authority(None, True, None, distrust)
    return Authority(team, blind, path, None)


def _from_team_file(path: Path) -> Authority:
    """spanlab.team.toml, looked at before it is parsed: a file that does not count is
    never read further (a member's planted file refuses roles, not every command)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return Authority(None, True, None, _unopened(path, exc))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        why, fix = _file_problem(path, info, None)
        if why is not None:
            return Authority(None, True, None, Distrust(_head(why), fix or ""))
        data, text = _parsed(path, handle.read(MAX_CONFIG_FILE + 1))
    team = read_team(data["team"], text, str(path), TEAM_KEYS) if "team" in data else None
    distrust = _problem(path, info, team, shared=False)  # its owner must be a lead it names
    if distrust is not None:
        return Authority(None, True, None, distrust)
    settings = {key: data[key] for key in PROJECT_KEYS if key in data}
    return Authority(team, bool(data.get("blind", False)), path, None, settings=settings)


def _leads_alone(path: Path, team: Team | None) -> bool:
    """Whether spanlab.toml beside a team file passes the team file's own rule, so its
    steering keys count (a lead keeps it `0644`); absent counts as nothing to steer."""
    try:
        info = os.lstat(path)
    except OSError:
        return True
    return _problem(path, info, team, shared=False) is None


def _parsed(path: Path, raw: bytes) -> tuple[dict[str, Any], str]:
    """The team file's keys, checked: `[team]`, `blind` and the steering keys (their values
    are spanlab.toml's reader's to check)."""
    if len(raw) > MAX_CONFIG_FILE:
        raise ConfigError(f"is larger than {MAX_CONFIG_FILE} bytes", file=str(path))
    try:
        text = raw.decode("utf-8")
        data = toml_tree(text, _Where(str(path)))
    except UnicodeDecodeError as exc:
        raise ConfigError("not valid UTF-8", file=str(path), offset=exc.start) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"malformed TOML: {exc}", file=str(path)) from None
    unknown = sorted(set(data) - set(TEAM_KEYS))
    if unknown:
        known = ", ".join(sorted(TEAM_KEYS))
        raise ConfigError(f"unknown key {unknown[0]!r} (known: {known}; the rest belongs in "
                          "spanlab.toml)", file=str(path), key=unknown[0])  # fmt: skip
    if "blind" in data:
        typed(data["blind"], bool, _Where(str(path), "blind"))
    return data, text


def _unopened(path: Path, exc: OSError) -> Distrust:
    if exc.errno == errno.ELOOP:
        info = os.lstat(path)
        why = f"{path} is a symbolic link (owner {name_of_user(info.st_uid)})"
        return Distrust(_head(why), _replace_fix(path))
    why = f"{path} cannot be read: {exc.strerror}"
    return Distrust(_head(why), f"as its owner: chmod 644 {path}")


def _head(why: str) -> str:
    return f"[team] and blind do not count: {why}"


def _replace_fix(path: Path) -> str:
    folder = path.parent
    return (f"as the lead who owns {folder} (or root): mv {path} {path}.untrusted, write "
            f"[team] and blind anew into {path}, then chmod 644 {path}")  # fmt: skip


def _problem(
    path: Path, info: os.stat_result, team: Team | None, *, shared: bool
) -> Distrust | None:
    """Why `path` (as `info` shows it) is a file a non-lead could have written (None: it is not)."""
    why, fix = _file_problem(path, info, team)
    if why is None:
        why, fix = _chain_problem(path.parent, info.st_uid, team)
    if why is None:
        return None
    if shared:
        return Distrust(_head(why), _move_fix(path))
    return Distrust(_head(why), fix or "")


def _describe(path: Path, info: os.stat_result) -> str:
    owner, group = name_of_user(info.st_uid), name_of_group(info.st_gid)
    return f"{path} (owner {owner}, group {group}, mode {stat.S_IMODE(info.st_mode):04o})"


def _file_problem(path: Path, info: os.stat_result, team: Team | None) -> _Found:
    """The file's own checks: regular, writable by its owner alone, owned by the folder's
    owner (or root), that owner a lead it names."""
    if not stat.S_ISREG(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else kind_of(info.st_mode)
        return f"{_describe(path, info)} is {kind}, not a regular file", _replace_fix(path)
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{_describe(path, info)} is writable by its group or others", f"chmod 644 {path}"
    folder = os.lstat(path.parent)
    if info.st_uid not in (0, folder.st_uid):
        why = (f"{_describe(path, info)} belongs to someone other than the owner of "
               f"{path.parent} ({name_of_user(folder.st_uid)})")  # fmt: skip
        return why, _replace_fix(path)
    owner = name_of_user(info.st_uid)
    if team is not None and info.st_uid != 0 and owner not in team.leads:
        return f"{_describe(path, info)} belongs to {owner}, who is not among its leads", (
            f"add {owner} to leads in {path}, or root makes it: chown root {path}"
        )
    return None, None


def _chain_problem(folder: Path, owner: int, team: Team | None) -> _Found:
    """The first folder from `folder` up to `/` that someone other than root or a lead
    owns, or that the group or others may write and is not sticky."""
    allowed = {0, owner} | _uids(team)
    for place in (Path(os.path.realpath(folder)), *Path(os.path.realpath(folder)).parents):
        info = os.lstat(place)
        if info.st_uid not in allowed:
            why = f"folder {_describe(place, info)} belongs to someone who is not a lead"
            return why, f"as root: chown {name_of_user(owner)} {place}"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
            why = (f"folder {_describe(place, info)} lets its group replace the files in it "
                   "(group- or other-writable, not sticky)")  # fmt: skip
            who = name_of_user(info.st_uid)
            return why, f"as {who}: chmod +t {place} (or chmod g-w,o-w {place})"
    return None, None


def _uids(team: Team | None) -> set[int]:
    """The uids of the team's leads that have an account here."""
    found = set()
    for name in team.leads if team is not None else ():
        try:
            found.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            continue
    return found


def _move_fix(path: Path) -> str:
    root = path.parent
    team = root / TEAM_FILE
    return (f"a lead who owns {root} moves the [team] table and the blind line out of {path} "
            f"into {team} (a new file of their own), then: chmod 644 {team} && chmod +t {root} "
            f"(if root owns {root}: chown LEAD {root} first)")  # fmt: skip
