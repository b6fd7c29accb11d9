"""The modules a Python or JavaScript script imports from the skill's own files.

Each script is analysed alone, so harm split across modules — a helper that reads the secret
in one file, another that sends in a second, the script joining them in a third — showed no
flow anywhere. The script is read with the modules it imports from the bundle (``from
helpers.report import publish``, ``const { publish } = require("./lib/report")``) placed before
it as a prelude and those import statements blanked (offsets kept), so the names are the
functions defined above: a secret handed to an imported function that sends its parameter is a
flow at the call (``python`` and ``javascript`` follow calls into the functions they know).
A Python module imported whole (``import helpers.report``) is placed the same way, and its
qualified calls (``helpers.report.publish(x)``) are read as calls of the function.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

_FROM_IMPORT = re.compile(
    r"(?m)^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(?:\([^)]{0,2000}\)|[^\n]{0,2000})"
)
_IMPORT = re.compile(r"(?m)^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$")
"""``import helpers.report`` (or ``… as report``): the module bound whole, its functions then
called by their qualified name."""
_JS_IMPORT = re.compile(
    r"(?m)^[ \t]*(?:(?:const|let|var)[ \t]+\{[^}]{0,500}\}[ \t]*=[ \t]*require\([ \t]*"
    r"|import[ \t]+\{[^}]{0,500}\}[ \t]+from[ \t]+)[\"'](\.{1,2}/[^\"'\n]{1,200})[\"'][ \t)]*;?"
)
"""``const { a } = require("./lib/a")``, ``import { a } from "./lib/a.js"``: names bound to a
module of the bundle, by a path relative to the script."""
_JS_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".ts", "/index.js")
MAX_MODULES = 8
MAX_PRELUDE = 256 * 1024


def with_imports(path: str, text: str, texts: Mapping[str, str]) -> tuple[str, str]:
    """(prelude, script): the texts of the bundle's modules that the Python or JavaScript file
    ``path`` imports from, and ``text`` with those import statements blanked to spaces. No
    prelude when it imports nothing of the bundle's."""
    folder = posixpath.dirname(path)
    python = path.lower().endswith(".py")
    modules: list[str] = []
    blanked = text
    for match in (_FROM_IMPORT if python else _JS_IMPORT).finditer(text):
        found = (
            _module(folder, match.group(1), match.group(2), texts)
            if python
            else _script(folder, match.group(1), texts)
        )
        if found is None or found == path or found in modules:
            continue
        modules.append(found)
        start, end = match.span()
        blanked = blanked[:start] + re.sub(r"[^\n]", " ", match.group(0)) + blanked[end:]
        if len(modules) >= MAX_MODULES:
            break
    if python:
        blanked = _unqualified(folder, blanked, texts, modules)
    prelude = "".join(texts[m] + "\n" for m in modules)
    if not modules or len(prelude) > MAX_PRELUDE:
        return "", text
    return prelude, blanked


def _unqualified(folder: str, text: str, texts: Mapping[str, str], modules: list[str]) -> str:
    """``text`` with each module of the bundle it imports whole (``import helpers.report``)
    added to ``modules``, the import blanked, and each qualified use ``helpers.report.publish``
    written ``(              publish)`` — the same length, so offsets hold, and the name of a
    function the prelude defines."""
    for match in _IMPORT.finditer(text):
        found = _module(folder, "", match.group(1), texts)
        if found is None or len(modules) >= MAX_MODULES:
            continue
        if found not in modules:
            modules.append(found)
        start, end = match.span()
        text = text[:start] + re.sub(r"[^\n]", " ", match.group(0)) + text[end:]
        qualifier = re.escape(match.group(2) or match.group(1))
        text = re.sub(
            rf"(?<![\w.]){qualifier}\.([A-Za-z_]\w*)",
            lambda m: "(" + " " * (len(m.group(0)) - len(m.group(1)) - 2) + m.group(1) + ")",
            text,
        )
    return text


def _module(folder: str, dots: str, name: str, texts: Mapping[str, str]) -> str | None:
    """The bundle path of module ``name`` imported from ``folder`` (``dots``: a relative
    import's leading dots), looked for beside the script, then from the bundle's root."""
    if not name:
        return None
    base = folder
    for _ in range(max(len(dots) - 1, 0)):
        base = posixpath.dirname(base)
    relative = name.replace(".", "/")
    roots = [base] if dots else [base, ""]
    for root in roots:
        for candidate in (f"{relative}.py", f"{relative}/__init__.py"):
            full = posixpath.join(root, candidate) if root else candidate
            if full in texts:
                return full
    return None


def _script(folder: str, relative: str, texts: Mapping[str, str]) -> str | None:
    """The bundle path of the JavaScript module ``relative`` (``./lib/send``) names."""
    base = posixpath.normpath(posixpath.join(folder, relative))
    return next((base + s for s in _JS_SUFFIXES if base + s in texts), None)
