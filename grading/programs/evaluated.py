"""Decoded text evaluated, in Perl, Ruby and PHP, read without a parser.

A Perl, Ruby or PHP program can hide what it does from every reader by keeping its code as
hex, base64 or uuencoded text and evaluating it (``eval pack("H*", $t)``,
``eval(base64_decode($p))``, ``eval(Base64.decode64(s))``). The constants alone may spell
something meaningful (``programs.encoded``), but the act is the evaluation: code that is run
and that no one could read before it ran has no benign reading — a program's own code is
written as code. A decoder whose result is only used as data (a checksum's bytes, an image), or
an ``eval`` of a block (Perl's and Ruby's exception handling), is none of this.

What is read: a string evaluator (Perl's ``eval EXPR``, Ruby's ``eval``/``instance_eval``/
``class_eval`` with an argument, PHP's ``eval``/``assert``/``create_function``) whose argument
is a decoder call, or a variable assigned a decoder's result — through as many assignments as
the program makes, since a payload is often decoded in two steps (base64, then inflated).
"""

from __future__ import annotations

import re
from itertools import islice

from grading.programs.facts import DECODED_EXEC, Fact

_DECODER = (
    r"\bpack\s*\(?\s*['\"](?:H\*?|h\*?|u|m0?|c\*|C\*|U\*)['\"]"
    r"|\bunpack1?\s*\(?\s*['\"](?:u|m0?|H\*?)['\"]|\bdecode_base64\b|\bMIME::Base64::decode\w*"
    r"|\bBase64\.(?:strict_|urlsafe_)?decode64\b|\bZlib::Inflate\.inflate\b|\bZlib\.inflate\b"
    r"|\bbase64_decode\b|\bgzinflate\b|\bgzuncompress\b|\bgzdecode\b|\bstr_rot13\b|\bhex2bin\b"
    r"|\bconvert_uudecode\b|\buncompress\s*\("
)
_DECODES = re.compile(_DECODER)
_EVALUATOR = re.compile(
    r"(?m)(?<![\w$>:.])(?:eval|instance_eval|class_eval|module_eval|assert|create_function)"
    r"\b(?!\s*(?:\{|do\b|\(\s*\)|;))\s*\(?\s*([^;\n]{1,300})"
)
"""A string evaluator and the text of its argument (up to the statement's end). ``eval {``
(Perl's exception handling), ``instance_eval do``/``{`` (Ruby's block forms) evaluate code
written as code."""
_ASSIGNED = re.compile(
    r"(?m)(?<![\w$@])([$@]?[A-Za-z_]\w{0,60})\s*(?:\.|\|\||\+)?=(?![=~>])\s*([^;\n]{1,2000})"
)
"""``my $u = …``, ``$code = …``, ``code = …``: a name and what it is given."""
_NAME = re.compile(r"[$@]?[A-Za-z_]\w*")
_DEFINED = re.compile(
    r"(?m)^[ \t]*(?:def|sub|(?:public |private |static )*function)[ \t]+([A-Za-z_]\w*)"
)
"""A method or function the program defines: ``def collation``, ``sub table``."""
MAX_BODY = 2000
MAX_SOURCE = 512 * 1024
"""Larger files are left to the pattern rules (as in ``programs.unparsed``)."""
MAX_EVALUATIONS = 200
"""A program's string evaluations read; a file of thousands is noise made to cost time."""
_EVALUATOR_WORDS = ("eval", "assert", "create_function")
LANGUAGES = (".pl", ".pm", ".rb", ".php", ".cgi")
_SHEBANG = re.compile(r"\A#![^\n]{0,80}\b(?:perl|ruby|php)\b")


def is_evaluating_language(path: str, text: str) -> bool:
    """Perl, Ruby or PHP, by the file's suffix or its shebang."""
    return path.lower().endswith(LANGUAGES) or _SHEBANG.match(text) is not None


def _decoded_names(text: str) -> set[str]:
    """Names the program assigns a decoder's result, or another such name's value, and
    functions whose body holds one (what a call returns is read from its body as a whole)."""
    assignments = [(m.group(1), m.group(2)) for m in _ASSIGNED.finditer(text)][:2000]
    definitions = list(_DEFINED.finditer(text))[:500]
    for index, match in enumerate(definitions):  # a function's body is what calling it gives
        end = definitions[index + 1].start() if index + 1 < len(definitions) else len(text)
        assignments.append((match.group(1), text[match.end() : min(end, match.end() + MAX_BODY)]))
    decoded: set[str] = set()
    for _ in range(4):  # a payload decoded in steps: each pass follows one more assignment
        before = len(decoded)
        for name, value in assignments:
            if name not in decoded and (
                _DECODES.search(value) or decoded & set(_NAME.findall(value))
            ):
                decoded.add(name)
        if len(decoded) == before:
            break
    return decoded


def analyse(text: str) -> list[Fact]:
    """Each string evaluation of decoded text in the program."""
    if len(text) > MAX_SOURCE or not any(word in text for word in _EVALUATOR_WORDS):
        return []
    found: list[Fact] = []
    decoded: set[str] | None = None
    for match in islice(_EVALUATOR.finditer(text), MAX_EVALUATIONS):
        argument = match.group(1)
        if _DECODES.search(argument):
            found.append(
                Fact(DECODED_EXEC, match.start(), f"evaluates a decoder's result: {argument[:120]}")
            )
            continue
        if decoded is None:
            decoded = _decoded_names(text)
        named = decoded & set(_NAME.findall(argument))
        if named:
            name = sorted(named)[0]
            found.append(Fact(DECODED_EXEC, match.start(), f"evaluates {name}, a decoder's result"))
    return found
