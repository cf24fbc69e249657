"""The bots worker entry point."""
