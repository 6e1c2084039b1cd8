"""Fakes that ship with the package: the scripted model and reply helpers.

Tests, demos and `--model script:FILE` use them; the model itself lives in
`agent/models/scripted.py` beside the other models.
"""

from __future__ import annotations

from agent.models.scripted import ScriptedModel, call, load_script, reply

__all__ = ["ScriptedModel", "call", "load_script", "reply"]
