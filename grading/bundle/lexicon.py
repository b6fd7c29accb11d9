"""The intent lexicon (``data/lexicon.yaml``) compiled into linear-time patterns.

A class (``credential``, ``send``, ``secrecy``…) names a meaning; its terms say it in each
language Skillgate reads. Each (class, language) pair is one RE2 pattern, and one RE2 set per
language holds that language's patterns, so a unit of text is tested for every class in one pass
per language (``present``) before any positions are computed. (One set of every pattern would be
one pass, but its automaton — the product of every language's unanchored words and wildcards —
outgrows RE2's state cache and is rebuilt again and again, reading about 1.4 MB/s; a set per
language stays within its cache, and all of them together read hundreds of MB/s.)

A language's terms are applied to text in that language only (and English terms to all text,
which mixes English into every language): a German stem such as ``sende*`` would otherwise read
English "sender" as "send".

Terms of alphabetic languages match whole words (no letter or digit of any script on either
side; a Hebrew or Arabic term may stand after the words written onto it, ``_PREFIXES``); terms
of Chinese, Japanese and Korean match anywhere; the language-neutral ``any`` terms (paths,
flags) match anywhere and, when they end in a letter or digit, end there. Text is matched in
lower case.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import re2

from grading import linear, strictyaml
from grading.bundle import translit

LEXICON_FILE = Path(__file__).with_name("data") / "lexicon.yaml"
_SET_OPTIONS = re2.Options()
_SET_OPTIONS.log_errors = False
_SET_OPTIONS.max_mem = 128 << 20
"""RE2 options of the per-language sets: a larger state budget than ``linear.OPTIONS``. The
English set's lazy DFA outgrew 64 MB over the corpus and was thrown away and rebuilt again and
again (a second pass over the same texts cost nearly what the first did); with 128 MB its states
are kept: the corpus's 72,000 lexicon texts cost 10.6 s → 7.0 s CPU cold and 9.1 s → 2.1 s warm
(256 and 512 MB: no better), every text matching the same pairs. Only the memory a set uses is
taken, and its budget bounds it."""
READ_LANGUAGES = ("en", "zh", "es", "pt", "fr", "de", "ja", "ko", "ru", "it", "nl", "pl", "tr",
                  "uk", "vi", "id", "cs", "ro", "hu", "sv", "el", "th", "he", "ar", "hi",
                  "bn")  # fmt: skip
"""The languages whose instructions Skillgate reads (each class has terms in each)."""
NEUTRAL = "any"
TRANSLITERATED = "ru"
"""The language whose terms are also read as typed in Latin letters (``translit``)."""
LATIN = "-latn"
"""The suffix of a language's terms written in Latin letters (``zh-latn``: pinyin, ``ja-latn``:
romaji), read wherever the language itself is (``translit.romanised``)."""
_UNSPACED = frozenset({"zh", "ja", "ko", "th"})
_THAI_INSIDE = "\u0e40-\u0e44", "\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"
"""Thai is written without spaces between words, so its terms match anywhere, as Chinese ones
do; but a Thai syllable may start with a vowel written before its consonant (เ แ โ ใ ไ) and
end with marks written after it: a term right after the one or right before the other is part
of another syllable — "ปิด" ("switch off") inside "เปิด" ("open")."""
_COMPOUNDS = {
    "vi": ("tóm tắt", "phím tắt", "viết tắt", "đường tắt", "lối tắt", "chỉnh sửa", "thúc đẩy",
           "trao đổi", "biến đổi"),
}  # fmt: skip
"""Words of two syllables whose second syllable is a term of its own. Vietnamese writes every
syllable apart, so a term matches whole syllables, not whole words: "tắt" ("turn off") stands in
"tóm tắt" ("summarise"), "sửa" ("fix") in "chỉnh sửa" ("edit"), "đẩy" ("push") in "thúc đẩy"
("promote"), "đổi" ("change") in "trao đổi" ("discuss"). A term so preceded is no match."""
_WORD_GAP = r"[\s_-]+"
_WILD = r"[^\s.,;:!?()\[\]{}<>\"'`/\\|*+=&%$#@~^_\-]*"
r"""The rest of a word (``word*``): anything but spaces and punctuation. A small negated class —
``\pL*`` after each of hundreds of terms makes RE2 build hundreds of Unicode tables."""
_SKIPPED_WORDS = r"(?:[\s_-]+[^\s_-]+){0,4}"
"""``*`` standing alone between words: up to four words (``include * in the url``)."""


@dataclass(frozen=True)
class Lexicon:
    patterns: dict[tuple[str, str], linear.LinearPattern]
    """(class, language) → the pattern of that language's terms for the class."""
    by_class: dict[str, tuple[tuple[str, linear.LinearPattern], ...]]
    """class → (language, pattern) of each of its languages: ``hits`` is asked about one class
    at a time, thousands of times on a long text, and should not walk every pair for it."""
    together: tuple[tuple[re2.Set, tuple[tuple[str, str], ...], bool], ...]
    """Per language, its patterns at once, the (class, language) pair of each, and whether
    every term of the language holds a letter outside ASCII (Japanese, Korean): which pairs a
    text holds, in one pass per language — none for such a language when the text is ASCII,
    which no term of it can match."""
    screens: dict[str, re2.Set]
    """class → one RE2 set of its languages' patterns, in ``by_class`` order, and last an empty
    pattern: which of its languages have a term in a text, in one pass. ``hits`` searches only
    those for positions — a class is asked about a whole file's text, and one pass of a set
    costs what one language's search does, of twenty-odd. A result without the empty pattern's
    index means the set's automaton gave up (its memory budget): every language is searched."""
    version: str


def _term(term: str) -> str:
    """One term as a pattern: words joined by spaces, hyphens or underscores; ``word*`` lets
    the word go on; a lone ``*`` stands for up to four words."""
    out = ""
    for word in term.lower().split(" "):
        if word == "*":
            out += _SKIPPED_WORDS
            continue
        wild = word.endswith("*") and len(word) > 1
        core = re.escape(word[:-1] if wild else word).replace("'", "['’]")
        out += (_WORD_GAP if out else "") + core + (_WILD if wild else "")
    return out


def _latin_term(term: str) -> str | None:
    """A Russian term as typed in Latin letters (``translit``): each Cyrillic word spelled in
    every common scheme, the rest as ``_term`` has it; None when the term has no Cyrillic."""
    out, cyrillic = "", False
    for word in term.lower().split(" "):
        if word == "*":
            out += _SKIPPED_WORDS
            continue
        wild = word.endswith("*") and len(word) > 1
        stem = word[:-1] if wild else word
        latin = translit.latin_pattern(stem)
        cyrillic = cyrillic or latin is not None
        core = latin if latin is not None else re.escape(stem).replace("'", "['’]")
        out += (_WORD_GAP if out else "") + core + (_WILD if wild else "")
    return out if cyrillic else None


def _outside_ascii(term: str) -> bool:
    """Whether every match of the term's pattern holds a character outside ASCII: one of its
    words (less a trailing ``*``), spelled out literally in the pattern, has one."""
    words = (w[:-1] if w.endswith("*") else w for w in term.lower().split(" ") if w != "*")
    return any(not word.isascii() for word in words)


_CAPITALS_FOLD = frozenset({"el"})
"""Languages whose capital letters imitate Latin ones where the small ones do not: Greek "Μην"
(a sentence's first word) is folded to "Mnv" by Tier 1's normalisation, "μην" is not."""


_MARKED = frozenset({"hi", "bn"})
"""Languages whose vowel signs are marks (``\\pM``), not letters: a term ends where no letter,
digit or mark follows — Hindi "हर" ("every") is not read in "हरा" ("green")."""
_HINDI_SPELLINGS = (
    lambda term: term.replace("\u093c", ""),
    lambda term: term.replace("\u0901", "\u0902"),
)
"""Hindi is written with and without the nukta ("फ़ाइल", "फाइल") and with the chandrabindu or the
anusvara in its place ("माँगें", "मांगें"): a Hindi term is held in each spelling (a nukta letter
typed as one code point, "ज़", Tier 1's normalisation already spells as two)."""


def _variants(term: str, language: str = "") -> list[str]:
    """The term, and the term as Tier 1's normalisation spells it: a word made only of letters
    that imitate Latin ones (Russian "все") is folded to Latin before any rule reads it — in
    Greek also as it is spelled starting a sentence ("Μην πεις", "Τα αρχεία"); a Hindi term
    also in its other spellings (``_HINDI_SPELLINGS``)."""
    from grading.tier1.normalise import normalise  # the scanner imports this module

    spellings = [term, term.capitalize()] if language in _CAPITALS_FOLD else [term]
    if language == "hi":
        for respell in _HINDI_SPELLINGS:
            spellings += [respell(spelling) for spelling in spellings]
    folded = [normalise(spelling).text.lower() for spelling in spellings]
    return list(dict.fromkeys([term, *folded]))


_PREFIXES = {"he": ("[והלבמשכ]{0,3}", "ו?"), "ar": ("[وفبلك]{0,2}(?:ال)?", "[وف]?")}
"""Words written onto the next one, and those a term of two letters may stand after: Hebrew
"and", "the", "to", "in", "from", "that", "as" (ו ה ל ב מ ש כ: "ושלחו", "למשתמש"), but before a
short term only "and" ("ואל תספר") — "לא" ("not") is not read in "מלא" ("full"); Arabic "and",
"so", "with", "to", "as" and the article (و ف ب ل ك ال: "وأرسل", "للمستخدم", "بالمحتوى"), before a
short term "and" and "so" ("ولا تخبر", "فلا"). Vowel points are marks (category M), not letters:
a term does not start after one, and its last letter may carry them."""
_ARABIC_ARTICLE = "ال"
_ARABIC_LETTERS = {"ا": "[اأإآ]", "أ": "[اأإآ]", "إ": "[اأإآ]", "آ": "[اأإآ]", "ي": "[يى]"}
"""Arabic is often typed without the hamza on alef ("ارسل" for "أرسل") and with a final ى for
ي: a term matches either spelling."""
_HARAKAT = "[\u064b-\u065f\u0670]*"
"""Arabic vowel signs, the doubling sign and the ending "-an" (تأكيدًا, شغّل): written on a letter
inside a word, so a term lets any letter carry them (a small class, not ``\\pM``)."""


def _prefixed(language: str, terms: Iterable[str]) -> str:
    """The alternation of a Hebrew or Arabic term set: terms whose first word has three letters
    or more may stand after the attached words of ``_PREFIXES``, shorter ones after "and" only.
    An Arabic term's own article is one of them ("المستخدم" is read in "للمستخدم")."""
    long: set[str] = set()
    short: set[str] = set()
    for term in terms:
        for variant in _variants(str(term), language):
            first = variant.split(" ")[0].rstrip("*")
            if language == "ar" and first.startswith(_ARABIC_ARTICLE) and len(first) > 4:
                variant, first = variant[2:], first[2:]
            (long if len(first) > 2 else short).add(_arabic(_term(variant), language))
    alternatives = [
        f"{before}(?:{'|'.join(sorted(spelled, key=len, reverse=True))})"
        for before, spelled in zip(_PREFIXES[language], (long, short), strict=True)
        if spelled
    ]
    return "|".join(alternatives)


def _arabic(spelled: str, language: str) -> str:
    """An Arabic term's pattern with either spelling of alef and final ya, and the marks any
    letter may carry (``_ARABIC_LETTERS``, ``_HARAKAT``)."""
    if language != "ar":
        return spelled
    return "".join(
        _ARABIC_LETTERS.get(char, char) + (_HARAKAT if "\u0621" <= char <= "\u064a" else "")
        for char in spelled
    )


def _pattern(language: str, terms: Iterable[str]) -> str:
    if language in _PREFIXES:
        body = _prefixed(language, terms)
        return r"(?:^|[^\pL\pM\pN])(" + body + r")\pM*(?:[^\pL\pM\pN]|$)"
    spelled = {_term(variant) for term in terms for variant in _variants(str(term), language)}
    if language == TRANSLITERATED:
        spelled |= {latin for term in terms if (latin := _latin_term(str(term)))}
    compiled = sorted(spelled, key=len, reverse=True)
    body = "|".join(compiled)
    if language == "th":
        before, after = _THAI_INSIDE
        return f"(?:^|[^{before}])({body})(?:[^{after}]|$)"
    if language in _UNSPACED:
        return f"({body})"
    if language == NEUTRAL:
        return f"({body})(?:[^\\w]|$)" if all(t[-1:].isalnum() for t in terms) else f"({body})"
    if language in _MARKED:
        return r"(?:^|[^\pL\pN\pM])(" + body + r")(?:[^\pL\pN\pM]|$)"
    return r"(?:^|[^\pL\pN])(" + body + r")(?:[^\pL\pN]|$)"


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    raw = strictyaml.load(LEXICON_FILE.read_text(encoding="utf-8"))
    sources: dict[tuple[str, str], str] = {}
    ascii_bound: set[str] = set()  # languages with a term that can match ASCII text
    for name, by_language in raw["classes"].items():
        neutral = [str(t) for t in by_language.get(NEUTRAL) or ()]
        for language, terms in by_language.items():
            if language == NEUTRAL or not terms:
                continue
            sources[(name, language)] = _pattern(language, terms)
            variants = (v for term in terms for v in _variants(str(term), language))
            if not all(_outside_ascii(variant) for variant in variants):
                ascii_bound.add(language)
        ending = [t for t in neutral if t[-1:].isalnum()]
        other = [t for t in neutral if not t[-1:].isalnum()]
        if ending:
            sources[(name, NEUTRAL)] = _pattern(NEUTRAL, ending)
        if other:
            sources[(name, NEUTRAL + "+")] = _pattern(NEUTRAL + "+", other)
    patterns = {key: linear.compile(source) for key, source in sources.items()}
    version = hashlib.sha256(LEXICON_FILE.read_bytes()).hexdigest()[:12]
    by_class: dict[str, tuple[tuple[str, linear.LinearPattern], ...]] = {}
    for (name, language), pattern in patterns.items():
        by_class[name] = (*by_class.get(name, ()), (language, pattern))
    ascii_bound.update(language for _, language in sources if language.startswith(NEUTRAL))
    together = _sets_by_language(sources, ascii_bound)
    screens = {
        name: _set(sources[(name, language)] for language, _ in pairs)
        for name, pairs in by_class.items()
    }
    return Lexicon(patterns, by_class, together, screens, version)


def _set(sources: Iterable[str]) -> re2.Set:
    """An RE2 set of ``sources`` and, last, the empty pattern (see ``Lexicon.screens``)."""
    patterns = re2.Set.SearchSet(_SET_OPTIONS)
    for source in (*sources, ""):
        patterns.Add(source.encode("utf-8"))
    patterns.Compile()
    return patterns


def _sets_by_language(
    sources: dict[tuple[str, str], str], ascii_bound: set[str]
) -> tuple[tuple[re2.Set, tuple[tuple[str, str], ...], bool], ...]:
    languages = sorted({language for _, language in sources})
    together = []
    for language in languages:
        keys = tuple(key for key in sources if key[1] == language)
        patterns = re2.Set.SearchSet(_SET_OPTIONS)
        for key in keys:
            patterns.Add(sources[key].encode("utf-8"))
        patterns.Compile()
        together.append((patterns, keys, language not in ascii_bound))
    return tuple(together)


def applies(language: str, languages: frozenset[str] | None) -> bool:
    """Whether terms of ``language`` count in text read in ``languages`` (None: all)."""
    return (
        languages is None
        or language.startswith(NEUTRAL)
        or language in languages
        or (language.endswith(LATIN) and language[: -len(LATIN)] in languages)
    )


def matched(text: str) -> frozenset[tuple[str, str]]:
    """The (class, language) pairs with at least one term in ``text`` (lower-cased)."""
    data = text.encode("utf-8")
    ascii = len(data) == len(text)
    return frozenset(
        keys[i]
        for patterns, keys, outside_ascii in lexicon().together
        if not (ascii and outside_ascii)
        for i in patterns.Match(data) or ()  # None when nothing matches
        if keys[i][1] not in _COMPOUNDS or next(pair_hits(keys[i], text), None) is not None
    )


def _inside_compound(language: str, text: str, start: int) -> bool:
    """Whether the term at ``start`` is the second syllable of a word (``_COMPOUNDS``)."""
    for word in _COMPOUNDS.get(language, ()):
        first, second = word.split(" ")
        if text.startswith(second, start) and re.search(
            rf"(?:^|[^\w]){first}[\s_-]+$", text[max(0, start - 12) : start]
        ):
            return True
    return False


def present(text: str, languages: frozenset[str] | None = None) -> frozenset[str]:
    """The classes with at least one term in ``text`` (lower-cased), counting the terms of
    ``languages`` only (all languages when None)."""
    return classes_of(matched(text), languages)


def classes_of(
    pairs: frozenset[tuple[str, str]], languages: frozenset[str] | None
) -> frozenset[str]:
    """The classes of ``pairs`` (see ``matched``) whose terms count in ``languages``."""
    return frozenset(cls for cls, language in pairs if applies(language, languages))


def pair_hits(pair: tuple[str, str], text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every term of one (class, language) pair in ``text``, in order, found
    as they are asked for."""
    spans = lexicon().patterns[pair].spans(text, 1)
    if pair[1] not in _COMPOUNDS:
        return spans
    return (span for span in spans if not _inside_compound(pair[1], text, span[0]))


def hits(name: str, text: str, languages: frozenset[str] | None = None) -> list[tuple[int, int]]:
    """(start, end) of every term of class ``name`` in ``text`` (lower-cased), in order."""
    found: list[tuple[int, int]] = []
    every = lexicon().by_class.get(name, ())
    if not every:
        return found
    held = set(lexicon().screens[name].Match(linear.subject(text).data) or ())
    gave_up = len(every) not in held
    for index, (language, pattern) in enumerate(every):
        if not (gave_up or index in held) or not applies(language, languages):
            continue
        for match in pattern.finditer(text):
            if not _inside_compound(language, text, match.start(1)):
                found.append(match.span(1))
    return sorted(found)
