"""Dependencies point down: the registry knows nothing of the pipeline, the reviews or the
graders, and the command-line client nothing of the server (it runs without Django)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def imported_modules(package: str) -> dict[str, set[str]]:
    imports: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        if "migrations" in path.parts:
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        imports[str(path.relative_to(ROOT))] = names
    return imports


@pytest.mark.parametrize(
    ("package", "forbidden", "allowed"),
    [
        # config.roles, config.scopes, config.statements and the large-list helpers (config.listing,
        # config.admin_lists, which import Django only) are neutral: config.api_errors and the
        # URLs import apps. grading is a database-free library: the registry stores what it
        # returns.
        (
            "registry",
            ("pipeline", "reviews", "accounts", "authors", "config"),
            (
                "config.roles",
                "config.scopes",
                "config.statements",
                "config.listing",
                "config.admin_lists",
            ),
        ),
        ("grading", ("pipeline", "registry", "reviews", "config"), ()),
        (
            "skillgate_cli",
            ("django", "rest_framework", "config", "registry", "pipeline", "accounts", "authors"),
            (),
        ),
    ],
)
def test_a_package_never_imports_what_sits_above_it(package, forbidden, allowed):
    offending = {
        module: sorted(
            name for name in names if name.split(".")[0] in forbidden and name not in allowed
        )
        for module, names in imported_modules(package).items()
    }
    assert {module: names for module, names in offending.items() if names} == {}
