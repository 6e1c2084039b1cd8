"""Screens, each beside its .tcss."""
