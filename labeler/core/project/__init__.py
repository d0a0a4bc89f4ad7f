"""A working folder's project (§10, §15, §20): spanlab.toml, the group that shares it, and who
may work in it through which folders — checked before a command opens anything."""
