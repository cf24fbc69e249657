"""The bots service: computer players that play through the public game API (issue #18)."""
