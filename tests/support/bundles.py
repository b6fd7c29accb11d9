"""Reading bundles in tests."""

from __future__ import annotations

from registry.bundles import Bundle


def text_of(bundle: Bundle, path: str) -> str:
    """The text of ``path`` in ``bundle``; the test fails if it is missing or binary."""
    file = bundle.get(path)
    assert file is not None, f"{path} is not in the bundle"
    assert file.text is not None, f"{path} is not text"
    return file.text
