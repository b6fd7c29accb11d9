"""Root given to the skill's own installer, which verifies what it downloads before installing.

``sudo apt-get install x`` is a package install (``privilege.package-install``): root for the
one act of placing a vendor's signed package, noted for the reviewer and not high privilege on
its own. ``sudo -E ./install-terraform.sh`` runs a script; when that script is shipped in the
bundle (so Tier 1 read all of it), checks the download against a checksum or a signature before
anything is installed, stops when the check fails, and holds nothing any rule reports, root
does the same one act — a vendor's verified release placed in a prefix — and is counted as the
package install it is. A script that verifies nothing, stops on nothing, or does anything a rule
sees (a service, a sudoers line, a send) keeps ``privilege.sudo`` and its own findings.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from grading.tier1.catalogue import Catalogue
from grading.tier1.files import is_markdown
from grading.tier1.findings import Collector

_SUDO_SCRIPT = re.compile(
    r"\bsudo\s+(?:-[A-Za-z]{1,4}\s+)*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:(?:ba|z)?sh\s+)?"
    r"((?:\./|[\w-]+/)?[\w./-]*\.sh)\b"
)
"""``sudo [-E] [VAR=value …] [bash] path/to/script.sh``: the script root runs."""
_FETCHES = re.compile(r"(?m)^[^#\n]*\b(?:curl|wget)\s")
_VERIFIES = re.compile(
    r"(?m)^[^#\n]*(?:\bsha(?:1|224|256|384|512)sum\s+(?:-\w+\s+)*(?:--check|-c)\b"
    r"|\bshasum\s+(?:-a\s+\d+\s+)?(?:-\w+\s+)*(?:--check|-c)\b"
    r"|\bgpg\s+(?:--\S+\s+)*--verify\b|\bcosign\s+verify(?:-blob)?\b|\bminisign\s+-V\b"
    r"|\bopenssl\s+dgst\s+[^\n]*-verify\b)"
)
"""A check of the download against a checksum list or a signature."""
_STOPS = re.compile(r"(?m)^\s*set\s+-[a-z]*e[a-z]*\b|^\s*set\s+-o\s+errexit\b")
"""The script stops at the first failing command, so a failed check installs nothing."""


def verified_installer(script: str) -> bool:
    """The script downloads, checks the download against a checksum or a signature, and stops
    when the check fails (``set -e``)."""
    return bool(_FETCHES.search(script) and _VERIFIES.search(script) and _STOPS.search(script))


def check_root_installers(
    texts: Mapping[str, str], catalogue: Catalogue, collector: Collector
) -> None:
    """Count as ``privilege.package-install`` each ``privilege.sudo`` hit in a document whose
    line gives root to a shipped, verified installer that no rule reported anything in."""
    reported = {finding.file for finding in collector.findings}
    package = catalogue.rule("privilege.package-install")
    for index, finding in enumerate(list(collector.findings)):
        if finding.rule_id != "privilege.sudo" or not is_markdown(finding.file):
            continue
        lines = texts.get(finding.file, "").split("\n")
        line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        scripts = [_shipped(m.group(1), finding.file, texts) for m in _SUDO_SCRIPT.finditer(line)]
        if not scripts or any(
            script is None or script in reported or not verified_installer(texts[script])
            for script in scripts
        ):
            continue
        names = ", ".join(str(script) for script in scripts)
        note = f"(root runs the skill's own installer {names}, which verifies its download)"
        collector.recount(index, package, note)


def _shipped(mention: str, source: str, texts: Mapping[str, str]) -> str | None:
    """The bundle path of the script ``mention`` names from ``source``, if the bundle ships it."""
    for candidate in (
        posixpath.normpath(posixpath.join(posixpath.dirname(source), mention)),
        posixpath.normpath(mention),
    ):
        if candidate in texts:
            return candidate
    return None
