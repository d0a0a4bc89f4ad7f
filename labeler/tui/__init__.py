"""The Textual app, by feature: `label/`, `review/`, `triage/`, each a screen with its
Textual-free model or state, its widgets and its .tcss; `widgets/` holds what several
features share (the document view), `screens/` the app-wide screens (help, stats, dialogs).

The top level keeps only what is app-wide: the app, its base, launch, messages, settings
and themes. A new screen goes in the package of the feature it serves.
"""
