"""What a user names a skill by: ``[OWNER/]NAME[@VERSION|@latest]``, and how a bare NAME is found
(the one published skill of that name, or a list to choose from)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillgate_cli.exits import Exit, Failure
from skillgate_cli.output import shown
from skillgate_cli.registry import Registry, RegistryError

LATEST = "latest"
_SPEC = re.compile(
    r"(?:(?P<owner>[A-Za-z0-9][A-Za-z0-9._-]{0,99})/)?(?P<name>[a-z0-9-]{1,64})"
    r"(?:@(?P<version>[0-9A-Za-z.+-]{1,64}))?"
)
USAGE = "[OWNER/]NAME[@VERSION|@latest]"


@dataclass(frozen=True)
class Spec:
    owner: str | None
    name: str
    version: str | None
    """None for the latest published version (``@latest`` or nothing)."""

    @classmethod
    def parse(cls, text: str) -> Spec:
        match = _SPEC.fullmatch(text)
        if match is None or ".." in text:
            raise Failure(
                f"{text!r} is not {USAGE} (NAME: lowercase letters, digits and '-')", Exit.USAGE
            )
        version = match["version"]
        owner = match["owner"]
        return cls(
            owner.lower() if owner else None,
            match["name"],
            None if version in {None, LATEST} else version,
        )

    def qualified(self, registry: Registry) -> Spec:
        """The spec with its owner: a bare NAME is the one published skill of that name."""
        if self.owner:
            return self
        try:
            found = registry.skills_named(self.name)
        except RegistryError as error:
            raise Failure(str(error)) from error
        owners = sorted({str(skill.get("owner")) for skill in found})
        if not owners:
            raise Failure(
                f"no published skill is named {self.name} at {registry.url}; "
                f"try `skillgate search {self.name}`"
            )
        if len(owners) > 1:
            choices = ", ".join(shown(f"{owner}/{self.name}") for owner in owners)
            raise Failure(f"several skills are named {self.name}: say which, {choices}")
        return Spec(owners[0], self.name, self.version)

    @property
    def ref(self) -> str:
        return f"{self.owner}/{self.name}" + (f"@{self.version}" if self.version else "")
