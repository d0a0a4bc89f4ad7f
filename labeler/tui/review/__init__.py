"""The stale-span review screen (SPEC §8) and a launcher for it."""

from labeler.tui.review.app import ReviewApp, run_review_app
from labeler.tui.review.screen import ReviewScreen

__all__ = ["ReviewApp", "ReviewScreen", "run_review_app"]
