"""How spanlab opens, reads and writes a file in a folder a group shares (§13, §15, §20):
never through a link, sized before read, written whole, the group's modes, and who may write."""
