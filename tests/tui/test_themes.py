"""Theme palettes are data: loading, validation and name resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.errors import ConfigError
from labeler.tui.themes import VARIABLE_DEFAULTS, load_theme, load_themes, resolve


def test_bundled_themes_define_every_variable_of_ours() -> None:
    themes = load_themes()
    assert sorted(themes) == ["spanlab-dark", "spanlab-high-contrast", "spanlab-light"]
    for theme in themes.values():
        assert set(theme.variables) >= set(VARIABLE_DEFAULTS)
    assert themes["spanlab-light"].dark is False


def test_high_contrast_uses_only_ansi_colours() -> None:
    ansi = {"#000000", "#800000", "#008000", "#808000", "#000080", "#800080", "#008080"}
    ansi |= {"#c0c0c0", "#808080", "#ff0000", "#00ff00", "#ffff00", "#0000ff", "#ff00ff"}
    ansi |= {"#00ffff", "#ffffff"}
    theme = load_themes()["spanlab-high-contrast"]
    colours = [theme.primary, theme.foreground, theme.background, *theme.variables.values()]
    assert set(colours) <= ansi


def test_resolve_accepts_short_names() -> None:
    names = ["spanlab-dark", "textual-light"]
    assert resolve("dark", names) == "spanlab-dark"
    assert resolve("textual-light", names) == "textual-light"
    assert resolve(None, names) == "spanlab-dark"


def test_unknown_keys_name_the_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[colors]\nprimary = "#000000"\nshiny = "#ffffff"\n')
    with pytest.raises(ConfigError) as err:
        load_theme(bad)
    assert (err.value.file, err.value.key) == (str(bad), "colors.shiny")


def test_malformed_toml_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(ConfigError, match="malformed theme"):
        load_theme(bad)
