"""The graders' hand-edited data files are read strictly: a key written twice is an error, not
a silent replacement, whichever YAML parser PyYAML brings."""

from __future__ import annotations

import pytest
import yaml

from grading import strictyaml


def test_a_key_written_twice_is_refused_with_its_line() -> None:
    with pytest.raises(strictyaml.DuplicateKeyError, match=r"\['send'\] at line 2"):
        strictyaml.load("classes:\n  send: [a]\n  send: [b]\n")


def test_a_file_reads_as_safe_yaml_reads_it() -> None:
    text = "rules:\n  - id: x\n    keywords: ['a', \"b\"]\n    window: [10, 20]\n    on: yes\n"
    assert strictyaml.load(text) == yaml.safe_load(text)


def test_tags_that_build_python_objects_are_refused() -> None:
    with pytest.raises(yaml.YAMLError):
        strictyaml.load("x: !!python/object/apply:os.system ['true']\n")
