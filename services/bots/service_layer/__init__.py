"""Bot use cases: take a turn through the game API."""
