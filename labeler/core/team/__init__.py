"""A team's rules (§15, §20): who a member is and may do (roles), where roles and blind may
come from (authority), and which versions each member sees (visibility)."""
