"""Safe YAML that refuses duplicate keys: the graders' data files (rules, lexicon) are edited
by hand, and a key written twice would otherwise silently replace the first.

The files are parsed by libyaml (``CSafeLoader``, bundled with PyYAML's wheels) where it is
there: the pure-Python parser took ~6 of the ~9 s a cold worker spent before its first scan."""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(ValueError):
    """A mapping names the same key twice."""


_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(_SafeLoader):  # type: ignore[misc,valid-type]
    """A safe YAML loader that raises ``DuplicateKeyError`` on a repeated key."""


def _mapping_without_duplicates(loader: Any, node: yaml.MappingNode) -> dict[Any, Any]:
    keys = [loader.construct_object(key) for key, _ in node.value]
    duplicates = {key for key in keys if keys.count(key) > 1}
    if duplicates:
        raise DuplicateKeyError(
            f"duplicate key(s) {sorted(duplicates)} at line {node.start_mark.line + 1}"
        )
    return loader.construct_mapping(node, deep=True)


StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates
)


def load(text: str) -> Any:
    return yaml.load(text, Loader=StrictLoader)
