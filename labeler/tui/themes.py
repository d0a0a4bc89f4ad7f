"""Themes are data: TOML palette files in `themes/` turned into Textual themes.

Stylesheets name roles (`$span-current`); a palette file gives them colours, so a team can
add a theme without touching code. Our own variables get defaults here, which the app
hands to Textual through `get_theme_variable_defaults()`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.theme import Theme

from labeler.core.errors import ConfigError
from labeler.core.resources import bundled

VARIABLE_DEFAULTS: dict[str, str] = {
    "span-current": "#174fa5",
    "span-other": "#35393f",
    "span-alternative": "#1a6410",
    "selection": "#8243a6",
    "annotator-a": "#174fa5",
    "annotator-b": "#c8962e",
    "boundary-baseline": "#3d8fd1",
    "boundary-candidate": "#e0a030",
    "match": "#806000",
}
"""Our variables and their fallbacks when a palette leaves one out."""

DEFAULT_THEME = "spanlab-dark"
"""The theme used when none is asked for."""

_COLORS = frozenset(
    {"primary", "secondary", "accent", "warning", "error", "success", "foreground"}
    | {"background", "surface", "panel", "boost"}
)


def themes_folder() -> Path:
    return bundled("themes")


def load_theme(path: Path) -> Theme:
    """One palette file; unknown keys are errors that name the file and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"malformed theme: {exc}", file=str(path)) from None
    unknown = set(data) - {"name", "dark", "colors", "variables"}
    if unknown:
        raise ConfigError("unknown theme setting", file=str(path), key=sorted(unknown)[0])
    colors = data.get("colors", {})
    bad = set(colors) - _COLORS
    if bad or "primary" not in colors:
        key = f"colors.{sorted(bad)[0]}" if bad else "colors.primary"
        raise ConfigError("unknown or missing theme colour", file=str(path), key=key)
    name = data.get("name") or path.stem
    variables = {str(k): str(v) for k, v in data.get("variables", {}).items()}
    return Theme(name=name, dark=bool(data.get("dark", True)), variables=variables, **colors)


def load_themes(folder: Path | None = None) -> dict[str, Theme]:
    """Every `*.toml` palette in the folder, by theme name."""
    where = themes_folder() if folder is None else folder
    themes = (load_theme(p) for p in sorted(where.glob("*.toml")))
    return {t.name: t for t in themes}


def resolve(name: str | None, available: dict[str, Theme] | list[str]) -> str:
    """The theme called `name` (`dark` finds `spanlab-dark`); unknown names are errors."""
    if name is None:
        return DEFAULT_THEME
    for candidate in (name, f"spanlab-{name}"):
        if candidate in available:
            return candidate
    raise ConfigError(
        f"unknown theme {name!r}",
        key="theme",
        hint="one of: " + ", ".join(sorted(available)),
    )
