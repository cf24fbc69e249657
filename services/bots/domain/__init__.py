"""Pure bot logic: levels choose a move from a seat's view and its legal moves. No I/O here."""
