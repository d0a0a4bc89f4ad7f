"""The stale-span review screen (design §8); the app opens it as its `review` screen."""

from labeler.tui.review.screen import ReviewScreen

__all__ = ["ReviewScreen"]
