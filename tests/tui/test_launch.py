"""The entry point the CLI calls refuses a bad theme before any terminal is touched."""

from __future__ import annotations

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from labeler.core.store import Store
from labeler.tui.launch import run_app


def test_unknown_theme_is_a_config_error(store: Store, corpus: Corpus) -> None:
    with pytest.raises(ConfigError) as err:
        run_app(store, corpus, annotator="ann", theme="neon")
    assert err.value.hint is not None and "spanlab-high-contrast" in err.value.hint
