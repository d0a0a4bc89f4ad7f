"""Theme palettes are data: loading, validation and name resolution."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.color import Color

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


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours."""

    def luminance(hex_colour: str) -> float:
        def channel(c: float) -> float:
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(x / 255) for x in Color.parse(hex_colour).rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("name", ["spanlab-dark", "spanlab-light", "spanlab-high-contrast"])
def test_selection_current_other_and_alternative_spans_differ_in_16_colours(name: str) -> None:
    """A 16-colour terminal rounds each to its nearest ANSI colour: they must stay apart."""
    variables = load_themes()[name].variables
    ansi = {
        role: RichColor.parse(variables[role]).downgrade(ColorSystem.STANDARD).number
        for role in ("span-current", "span-other", "span-alternative", "selection")
    }
    assert len(set(ansi.values())) == 4, ansi


@pytest.mark.parametrize("name", ["spanlab-dark", "spanlab-light", "spanlab-high-contrast"])
def test_text_on_an_alternative_is_readable(name: str) -> None:
    theme = load_themes()[name]
    assert theme.foreground is not None
    assert contrast(theme.variables["span-alternative"], theme.foreground) >= 4.5


@pytest.mark.parametrize("name", ["spanlab-dark", "spanlab-light"])
def test_annotator_b_text_is_readable_on_the_surface(name: str) -> None:
    theme = load_themes()[name]
    assert theme.surface is not None
    assert contrast(theme.variables["annotator-b"], theme.surface) >= 4.5
