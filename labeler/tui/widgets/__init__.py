"""Widgets shared by several features: the document view (a package of its own).

A widget used by one feature only lives in that feature's package. Widgets show what a
screen sets and post what the user asks; they never touch the store.
"""
