from __future__ import annotations

import agent


def test_all_is_sorted_and_complete() -> None:
    assert agent.__all__ == sorted(agent.__all__)
    public = {name for name in vars(agent) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(agent, name)).__name__ == "module"}
    assert public - modules - {"annotations"} == set(agent.__all__)
