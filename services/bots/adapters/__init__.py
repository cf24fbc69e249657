"""HTTP client of the public game API, Redis wiring."""
