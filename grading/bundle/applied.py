"""Code an instruction tells the agent to write, apply or run, read for what it changes.

A fenced block in obeyed prose is an example of output unless the prose introducing it tells
the agent to use it ("apply this fix", "replace the call with:", "выполни:", "次のように設定"):
then it is code the agent will put into the user's project or run on the user's machine. Three
changes in such code are read here, whatever language surrounds them:

* ``weaken-security`` — the code makes a check accept anyone: tokens with ``alg: none`` or
  without signature verification, every origin with credentials, any TLS certificate, a
  content policy open to every source (in Python and JavaScript, and in C#, Java, Kotlin, Go
  and Ruby, which no parser here reads), a hard-coded password, a
  custom header that returns before the check or whose branch takes the body unverified, a
  failed signature check whose handler goes on with the body anyway (fail-open); on the host,
  a system or shared folder made writable by everyone, sudo without a password for everything,
  SELinux switched off;
* ``destroy-user-data`` — the code throws away what the user cannot get back: an orphan branch
  force-pushed, remote branches or tags deleted, ``.git`` or backups removed, a schema or a
  database dropped, the home folder removed;
* ``redirect-payment`` — the code fixes where money goes (a payout, settlement or recipient
  field) to a literal crypto address or IBAN.

A weakening or a destruction alone is a capability: a person decides. Presented as upkeep — a
repair, a check, a clean-up, a hardening (the ``pretext`` class, in the introduction, the words
after the block or the skill's own description) — the stated purpose contradicts the act, and
the change is reported as ``weaken-pretext`` or ``destroy-pretext``: a claim of deceit as well as
of harm. The user's consent said next to it ("ask first", "only if the user confirms") keeps it
a capability.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from grading import linear
from grading.bundle import lexicon
from grading.bundle.intents import Intent

INTRO_REACH = 400
"""Characters of prose before a block that may introduce it."""
AFTER_REACH = 300
"""Characters after a block that may say what it is for ("commit it as 'harden …'")."""

_INTRODUCING = frozenset({"write", "change", "follow", "run"})
_FENCES = ("```", "~~~")
"""Lexicon classes whose verbs, before a block, make it code to use."""

_WEAKENING = linear.compile(
    r"(?i)verify_signature[\"']?\s*[:=]\s*false"
    r"|[\"']?alg[\"']?\s*[:=]\s*[\"']none[\"']"
    r"|cors_(?:allow_all_origins|origin_allow_all)\s*=\s*true"
    r"|csrf_trusted_origins\s*=\s*\[\s*[\"']https?://\*"
    r"|(?:wtf_)?csrf_enabled\s*=\s*false"
    r"|\b(?:disable_auth\w*|auth_disabled|skip_auth\w*|bypass_auth\w*)\s*[:=]\s*(?:true|1)\b"
    r"|origin\s*:\s*(?:true|[\"']\*[\"'])[^}\n]{0,80}credentials\s*:\s*true"
    r"|(?:password|passwd|pwd|token|api[_-]?key|secret)[\"'\])]{0,3}\s*===?\s*[\"'][^\"'\n]{4,64}[\"']"
    r"|(?:headers?(?:\.get)?|\.get|getheader)\s*[(\[]\s*[\"']x-[\w-]{2,40}[\"']\s*[)\]][^\n]{0,80}\n?\s*"
    r"(?:return\s+(?:next|process|handle|view|func|call_next|get_response|\w*handler)\b|next\(\))"
    r"|(?:query|args|params|query_params|cookies)(?:\.get\(|\[|\.)\s*[\"']?"
    r"(?:debug|internal|bypass|skip_?auth|no_?auth|admin|backdoor)\w*[\"']?\s*[)\]]?\s*"
    r"(?:===?|is)\s*[\"']?(?:1|true|yes|on)\b[^\n]{0,40}(?:return\s+next\b|next\(\))"
    r"|[\"']x-[\w-]{2,40}[\"'][^\n]{0,80}\n[^\n]{0,120}\b(?:is_?admin|is_?superuser|is_?staff)\s*[:=]\s*true"
    r"|(?:request|ant|mvc)Matchers\(\s*[\"']/\*\*[\"']\s*\)\s*\.permitAll\(|anyRequest\(\)\s*\.permitAll\("
    r"|algorithms\s*[:=]\s*\[[^\]\n]{0,80}[\"']none[\"']"
    r"|ignoreExpiration\s*:\s*true|verify_exp[\"']?\s*[:=]\s*false"
    r"|jwt\.decode\([^\n]{0,120}\bverify\s*=\s*false"
    r"|\bchmod\s+(?:-R\s+)?(?:0?777|0?666|a\+rwx|[ao]\+w)\s+[\"']?(?:/|~)"
    r"|\bNOPASSWD:\s*ALL\b|\bsetenforce\s+0\b"
    r"|(?:headers?\s*\[\s*|headers?\.get\(\s*|\.get\(\s*|getheader\(\s*|header\(\s*)[\"']x-[\w-]{2,40}[\"']"
    r"\s*[\])]\s*\)?\s*[{:]?\s*\n?[^\n]{0,40}(?:JSON\.parse\(|json\.loads\(|get_json\()"
    r"|(?:constructEvent|verify\w*)\([^\n]{0,200}\n(?:[^\n]{0,200}\n){0,2}?\+?\s*\}\s*catch\s*\(\s*\w*\s*\)"
    r"\s*\{[^}]{0,160}?(?:JSON\.parse\(|return\s+next\(\s*\))"
    r"|except\s+[\w.]*(?:Signature|Verification|InvalidToken|Jwt|JWT)\w*[^:\n]{0,60}:\s*\n\+?\s*"
    r"(?:pass\b|\w+\s*=\s*json\.loads\()"
    # the same in the languages no parser here reads (C#, Java, Kotlin, Go, Ruby): token
    # signatures not checked, any TLS certificate accepted, any origin with credentials
    r"|ValidateIssuerSigningKey\s*=\s*false|RequireSignedTokens\s*=\s*false"
    r"|SignatureValidator\s*=\s*\([^)\n]{0,40}\)\s*=>\s*new\s+[\w.]*JsonWebToken\("
    r"|(?:ServerCertificateCustomValidationCallback|ServerCertificateValidationCallback)\s*\+?="
    r"[^;\n]{0,120}(?:=>\s*true\b|DangerousAcceptAnyServerCertificateValidator)"
    r"|(?:AllowAnyOrigin\(\s*\)|SetIsOriginAllowed\(\s*\w+\s*=>\s*true\s*\))[^;]{0,200}AllowCredentials\(\s*\)"
    r"|AllowCredentials\(\s*\)[^;]{0,200}(?:AllowAnyOrigin\(\s*\)|SetIsOriginAllowed\(\s*\w+\s*=>\s*true\s*\))"
    r"|allowedOriginPatterns\(\s*[\"']\*[\"']\s*\)[^;]{0,200}allowCredentials\(\s*true"
    r"|allowCredentials\(\s*true\s*\)[^;]{0,200}allowedOriginPatterns\(\s*[\"']\*[\"']"
    r"|checkServerTrusted\([^)\n]{0,120}\)\s*(?:throws\s+[\w.]+\s*)?\{\s*\}"
    r"|\bNoopHostnameVerifier\b|ALLOW_ALL_HOSTNAME_VERIFIER"
    r"|(?:setHostnameVerifier\(|hostnameVerifier\s*\{?)[^;\n]{0,60}->\s*true\b"
    r"|InsecureSkipVerify\s*:\s*true|verify_mode\s*=\s*OpenSSL::SSL::VERIFY_NONE"
    r"|JWT\.decode\([^)\n]{0,120},\s*(?:nil|[\"'][^\"'\n]{0,40}[\"']|[\w.]+)\s*,\s*false\b"
    r"|Content-Security-Policy[^\n]{0,60}default-src\s+\*\s[^\n]{0,60}unsafe-eval"
)
"""Code that makes a check accept anyone (see the module docstring)."""

_DESTRUCTION = linear.compile(
    r"(?i)git\s+checkout\s+--orphan|git\s+switch\s+--orphan"
    r"|git\s+push\s[^\n|&;]{0,80}--delete|git\s+push\s+\S+\s+:refs/"
    r"|git\s+push\s[^\n|&;]{0,80}(?:\s-f\b|--force\s|--force$)"
    r"|rm\s+-\w*r\w*\s+[^\n|&;]{0,80}(?:\.git\b|backups?\b|~/?\s|~/?$|\$home\b)"
    r"|\bdrop\s+(?:schema|database)\b"
    r"|shutil\.rmtree\(\s*(?:os\.path\.expanduser\(\s*[\"']~[\"']\s*\)|path\.home\(\)|home\b)"
)
"""Commands and calls that destroy what the user cannot get back."""

_PAYMENT = linear.compile(
    r"(?i)(?:payout|settlement|payee|beneficiary|recipient|receiv\w*|deposit|withdraw\w*|treasury"
    r"|iban|wallet|pay_?to|tip_?jar)\w*[\"']?\s*[:=]\s*[\"']"
    r"(?:0x[a-f0-9]{40}|bc1[a-z0-9]{25,60}|[13][a-km-z1-9]{25,34}|[a-z]{2}\d{2}[a-z0-9]{11,30}"
    r"|[a-z]{2}\d{2}(?: [a-z0-9]{4}){2,7}(?: [a-z0-9]{1,4})?)[\"']"
)
"""A payment destination field set to a literal crypto address or IBAN (written in one piece or,
as people write them, in groups of four)."""


_CHANGES = "|".join(
    f"(?:{p.pattern.removeprefix('(?i)')})" for p in (_WEAKENING, _DESTRUCTION, _PAYMENT)
)
_CHANGE = linear.compile("(?i)" + _CHANGES)
"""Any of the three changes: code in which none is found yields nothing, however it is
introduced, so reading its introduction (and labelling the blocks) can be skipped."""
_CHANGE_IN_LINES = linear.compile("(?im)" + _CHANGES)
"""The same over bodies joined by newlines: ``$`` ends each body as it ends the body alone (and
no pattern starts with ``^``), so a body's match is found in the joined text too — one search
rules out every body at once."""


def any_change(text: str, blocks: Iterable[tuple[int, int]]) -> bool:
    """Whether the code of any block of ``text`` (``(start, end)`` offsets) holds a change
    ``read_code`` reports — each block searched as ``read_code`` searches it, on its own."""
    bodies = [text[start:end] for start, end in blocks]
    if not bodies or _CHANGE_IN_LINES.search("\n".join(bodies)) is None:
        return False
    return any(_CHANGE.search(body) is not None for body in bodies)


def read(
    text: str, blocks: Iterable[tuple[int, int]], purpose: str, *, language: str = ""
) -> Iterator[Intent]:
    """The changes of the code blocks of ``text`` (``(start, end)`` offsets) that the prose
    before them tells the agent to use; ``purpose`` is the skill's own description."""
    previous_end = 0
    introduced = ""  # the introduction of the previous block, if it was code to use
    for start, end in sorted(blocks):
        gap = text[previous_end:start]
        intro = text[max(previous_end, start - INTRO_REACH) : start]
        previous_end = end
        if introduced and _only_labels(gap):
            intro = " ".join((introduced, gap))  # the same fix for another framework
        elif not _introduces(intro):
            introduced = ""
            continue
        introduced = intro
        context = " ".join((intro, text[end : end + AFTER_REACH], purpose))
        yield from read_code(text, start, end, context, language=language)


def read_code(
    text: str, start: int, end: int, context: str, *, language: str = ""
) -> Iterator[Intent]:
    """The changes of ``text[start:end]``, code the agent uses; ``context`` is what is said of
    it (its introduction, the skill's description)."""
    body = text[start:end]
    weakening = _WEAKENING.search(body)
    destruction = _DESTRUCTION.search(body)
    pretexted = (weakening or destruction) is not None and pretext(context)  # read if needed
    if weakening is not None:
        kind = "weaken-pretext" if pretexted else "weaken-security"
        yield _intent(kind, start, weakening, language)
    if destruction is not None:
        kind = "destroy-pretext" if pretexted else "destroy-user-data"
        yield _intent(kind, start, destruction, language)
    payment = _PAYMENT.search(body)
    if payment is not None:
        yield _intent("redirect-payment", start, payment, language)


_LIST_ITEM = linear.compile(r"^[ \t]{0,8}(?:[-*+]|\d{1,3}[.)])[ \t]+")
_INLINE_CODE = linear.compile(r"`([^`\n]{1,400})`")
_REFUSED = frozenset({"negation", "negation_after", "hardening"})
"""Classes that turn a list of rules into a list of what to refuse or look for."""


def read_rule_lists(
    text: str, regions: Iterable[tuple[int, int]], purpose: str, *, language: str = ""
) -> Iterator[Intent]:
    """The changes of the inline code in the items of a list the prose introduces as rules
    to apply ("When you write the settings, always follow these house rules:" then
    "- pass `options={"verify_signature": False}`"): each item's code goes into the user's
    project as surely as a fenced block introduced the same way. A list introduced as what to
    avoid or to look for, and an item that refuses its code, are not applied."""
    regions = tuple(regions)
    codes = (
        (start + low, start + high)
        for start, end in regions
        for low, high in _INLINE_CODE.spans(text[start:end], 1)
    )
    if not any_change(text, codes):
        return  # no inline code holds a change: no list item can apply one
    for start, end in regions:
        intro = ""
        offset = start
        for line in text[start:end].split("\n"):
            line_start, offset = offset, offset + len(line) + 1
            if not _LIST_ITEM.match(line):
                intro = line if line.strip() else intro
                continue
            words = _INLINE_CODE.sub("``", line).lower()  # the item's words, not its code
            if not _applies_list(intro) or lexicon.present(words) & _REFUSED:
                continue
            context = " ".join((intro, words, purpose))
            for code in _INLINE_CODE.finditer(line):
                low, high = code.span(1)
                yield from read_code(
                    text, line_start + low, line_start + high, context, language=language
                )


def _applies_list(intro: str) -> bool:
    """A line introducing a list as what to do: it ends with a colon and refuses nothing."""
    stripped = intro.rstrip()
    if not stripped.endswith((":", "：")):
        return False
    return not lexicon.present(stripped[-200:].lower()) & _REFUSED


def _introduces(intro: str) -> bool:
    """The prose before a block tells the agent to use it: it ends with a colon, a verb of
    using stands near its end, or the block sits right under a heading that says it is how the
    skill is used ("## Usage", "## Schnellstart"). The block's own opening fence is not prose."""
    lines = [line for line in intro[-INTRO_REACH:].split("\n") if line.strip()]
    if lines and lines[-1].lstrip().startswith(_FENCES):
        lines.pop()
    heading = lines[-1] if lines else ""
    if heading.startswith("#") and "usage" in lexicon.present(heading.lower()):
        return True
    while len(lines) > 1 and _LABEL.match(lines[-1]) and not lines[-1].rstrip().endswith(":"):
        lines.pop()  # "**Express**" names the variant; the prose above it introduces the block
    stripped = "\n".join(lines).rstrip()
    if stripped.endswith((":", "：")):
        return True
    return bool(lexicon.present(stripped[-200:].lower()) & _INTRODUCING)


_LABEL = linear.compile(
    r"^[ \t]*(?:\*\*|__|\*|_)?[^\s*_:：.!?。#>|-][^\n.!?。]{0,48}?"
    r"(?:\*\*|__|\*|_)?[ \t]*[:：]?(?:\*\*|__)?[ \t]*$"
)
"""A short line that only names what follows (a framework, a language, a file): no sentence,
and no heading, quote, table row or list item, which start something new."""


def _only_labels(gap: str) -> bool:
    """Between two blocks stand only the names of variants ("**FastAPI**"): the second block
    is another form of the first, introduced by what introduced it."""
    lines = [line for line in gap.split("\n") if line.strip()]
    if lines and lines[0].lstrip().startswith(_FENCES):
        lines.pop(0)
    if lines and lines[-1].lstrip().startswith(_FENCES):
        lines.pop()
    return len(lines) <= 2 and all(_LABEL.match(line) for line in lines)


def consent(context: str) -> bool:
    """The user's consent is said ("only if the user confirms", "ask first")."""
    return "consent" in lexicon.present(context.lower())


def pretext(context: str) -> bool:
    """A purpose of upkeep or protection is said, and no consent of the user."""
    classes = lexicon.present(context.lower())
    return "pretext" in classes and "consent" not in classes


_SENTENCE = re.compile(r"(?<=[.!?;])\s+|[。！？；]|\n[ \t]*\n")


def names_loss(description: str) -> bool:
    """A sentence of the skill's description says, unnegated, that the user's data is
    destroyed ("Overwrites production data", "drops the database"): the loss is said openly,
    not passed off as upkeep — as a purpose that names the control it switches off is no pretext
    for a weakening. A person still decides on the destruction. Only the description counts: an
    instruction that names the production database while calling its drop a clean-up ("free
    space: run this against the production database") still calls it upkeep."""
    for sentence in _SENTENCE.split(description.lower()):
        classes = lexicon.present(sentence)
        if {"destroy", "user_data_target"} <= classes and "negation" not in classes:
            return True
    return False


def _intent(kind: str, offset: int, match: linear.LinearMatch, language: str) -> Intent:
    low, high = match.span()
    return Intent(kind, offset + low, offset + high, match.group()[:120], language=language)
