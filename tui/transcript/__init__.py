"""The transcript: entries, their pieces and their lines at a width."""
