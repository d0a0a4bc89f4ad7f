"""The one redaction (labeler.core.secrets, §21): every credential shape the trial printed,
and the words around it kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.core.errors import ConfigError
from labeler.core.secrets import redact

CASES = [
    ("search server http://bob:hunter2@10.0.0.5:9200/search failed",
     "search server http://[redacted]@10.0.0.5:9200/search failed"),
    ("rerank server https://h/rerank?api_key=sk-abc123&model=x answered 2 scores",
     "rerank server https://h/rerank?api_key=[redacted]&model=x answered 2 scores"),
    ("the Chroma server at http://h:8000/?token=ghp_XYZ987 did not answer",
     "the Chroma server at http://h:8000/?token=[redacted] did not answer"),
    ("HTTP 401: bad header Authorization: Bearer sk-live-0123456789",
     "HTTP 401: bad header Authorization: [redacted]"),
    ("x-api-key=abcdef12 refused", "x-api-key=[redacted] refused"),
    ("upstream said: Bearer sk-live-0123456789 is revoked",
     "upstream said: Bearer [redacted] is revoked"),
    ("https://s3/x?X-Amz-Signature=deadbeef&X-Amz-Date=1",
     "https://s3/x?X-Amz-Signature=[redacted]&X-Amz-Date=1"),
    ("max_tokens=512 and a token budget of 1024 tokens", "max_tokens=512 and a token budget "
     "of 1024 tokens"),
    ("the embedding server http://127.0.0.1:7997/v1 failed after 1.0 s",
     "the embedding server http://127.0.0.1:7997/v1 failed after 1.0 s"),
]  # fmt: skip


@pytest.mark.parametrize(("said", "shown"), CASES)
def test_a_credential_is_redacted_and_the_rest_kept(said: str, shown: str) -> None:
    assert redact(said) == shown


def test_a_key_spanlab_holds_is_redacted_wherever_it_appears() -> None:
    assert redact("the server echoed my-secret-key back", "my-secret-key") == (
        "the server echoed [redacted] back"
    )


def test_every_error_message_passes_it() -> None:
    exc = ConfigError("cannot reach http://u:p4ss@h:1/?api_key=k-123", key="chroma_url",
                      hint="check http://u:p4ss@h:1")  # fmt: skip
    assert "p4ss" not in str(exc) and "k-123" not in str(exc)
    assert exc.message == "cannot reach http://[redacted]@h:1/?api_key=[redacted]"  # the app's
    assert str(exc) == ("key chroma_url: cannot reach http://[redacted]@h:1/?api_key=[redacted]\n"
                        "hint: check http://[redacted]@h:1")  # fmt: skip


SECRET = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ23456789_-", min_size=6, max_size=24)


@settings(max_examples=300, deadline=None)
@given(SECRET, SECRET, SECRET, st.sampled_from(["api_key", "token", "access_token", "password"]),
       st.sampled_from(["http", "https"]), st.text(max_size=30))  # fmt: skip
def test_no_credential_of_any_url_survives_and_redacting_twice_changes_nothing(
    user: str, password: str, key: str, name: str, scheme: str, around: str
) -> None:
    said = f"{around} server {scheme}://{user}:{password}@h.example:81/p?x=1&{name}={key} failed"
    shown = redact(said)
    for secret in (user, password, key):
        assert secret not in shown.replace(around, "")
    assert redact(shown) == shown
    assert "h.example:81/p?x=1&" in shown
