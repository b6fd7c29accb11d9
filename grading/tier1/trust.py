"""Root to add the user's own CA certificate to the system trust store.

Behind a company's TLS-inspecting proxy every tool fails with "unknown CA" until the company's
root certificate is in the system trust store: ``sudo cp corp-root.crt
/usr/local/share/ca-certificates/ && sudo update-ca-certificates``. Root does one act there —
the trust store refreshed with a certificate the user brings (from their IT department) — in a
skill whose description is about certificates. Such a line is counted as
``privilege.trust-anchor``: noted for the reviewer, not high privilege on its own. A certificate
the skill ships or the line downloads is another matter: a root its author controls, trusted for
every connection the machine makes, is a man-in-the-middle on all of it — that line keeps
``privilege.sudo``, and so does any other command run as root on it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from grading.tier1.catalogue import Catalogue
from grading.tier1.files import is_markdown
from grading.tier1.findings import Collector

_STEPS = re.compile(r"\s*(?:&&|;|\|\|)\s*")
_ROOT_STEP = re.compile(r"(?:^|[`\s(])sudo\s")
_TRUST_STEP = re.compile(
    r"(?:^|[`\s(])sudo\s+(?:(?:cp|install(?:\s+-m\s+\d{3,4})?)\s+([\w~./-]+\.(?:crt|pem))"
    r"\s+/usr/local/share/ca-certificates/[\w./-]*"
    r"|trust\s+anchor\s+(?:--store\s+)?([\w~./-]+\.(?:crt|pem))"
    r"|update-ca-certificates|update-ca-trust(?:\s+extract)?)[`\s.,:)]*$"
)
_FETCHES = re.compile(r"(?i)\b(?:curl|wget|https?://|iwr|invoke-webrequest)\b")
_ABOUT_CERTIFICATES = re.compile(r"(?i)\b(?:certificates?|certs?|CAs?|trust\s*stores?|TLS|SSL)\b")


def check_trust_anchors(
    texts: Mapping[str, str], purpose: str, catalogue: Catalogue, collector: Collector
) -> None:
    """Count as ``privilege.trust-anchor`` each ``privilege.sudo`` hit in a document, in a skill
    about certificates, whose line only adds a certificate the bundle does not ship and the
    line does not download to the system trust store, and refreshes it."""
    if not _ABOUT_CERTIFICATES.search(purpose):
        return
    shipped = {posixpath.basename(path) for path in texts}
    anchor = catalogue.rule("privilege.trust-anchor")
    for index, finding in enumerate(list(collector.findings)):
        if finding.rule_id != "privilege.sudo" or not is_markdown(finding.file):
            continue
        lines = texts.get(finding.file, "").split("\n")
        line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        if _FETCHES.search(line):
            continue
        steps = [step for step in _STEPS.split(line.split("#", 1)[0]) if _ROOT_STEP.search(step)]
        matches = [_TRUST_STEP.search(step) for step in steps]
        if not steps or any(match is None for match in matches):
            continue
        certificates = {name for m in matches if m for name in m.groups() if name}
        if any(posixpath.basename(name) in shipped for name in certificates):
            continue
        note = "(root adds the user's own certificate to the system trust store)"
        collector.recount(index, anchor, note)
