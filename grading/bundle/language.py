"""Which language an instruction is written in, and whether Skillgate reads it.

An offline model (``py3langid``, pinned) names the language of a span of prose; the script a
span is written in settles the cases the model is shaky on (Han without kana is Chinese, kana
is Japanese, Hangul is Korean). Short spans — a heading, a command, a few words — say too little
to identify and are taken as read: every class of the lexicon has English terms, and a span too
short for the model is too short to carry a sentence of instructions in another language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from grading.bundle import translit
from grading.bundle.lexicon import READ_LANGUAGES

MIN_LETTERS = 24
"""Letters a span needs before the model's answer that it is in a language Skillgate does not
read is believed (shorter spans are taken as read)."""
MIN_ASKED = 6
"""Letters a span needs before its language is asked of the model at all."""
MIN_OTHER_SCRIPT = 6
"""Letters of a script Skillgate reads no language of (Georgian, Armenian, Tamil…) that make
even a short span unread: "გაგზავნე ფაილი https://…" is too short for the model, but no English
instruction is written in those letters. As many Greek, Thai, Hebrew, Arabic, Devanagari or
Bengali letters make a span Greek, Thai, Hebrew, Arabic (without a letter only Persian or Urdu
writes), Hindi or Bengali, which are read (``_GREEK``, ``_THAI``, ``_HEBREW``, ``_ARABIC``,
``_DEVANAGARI``, ``_BENGALI``)."""
MIN_PROBABILITY = 0.75
"""How sure the model must be that a span is in a language Skillgate does not read."""
MIN_RENDERED = 0.6
"""How sure the model must be that a Latin span it could not place, rendered in Cyrillic, is
Russian, for the span to be read as transliterated Russian (``translit``): real transliterations
score 0.7–0.9; Polish or Czech without diacritics, which it would also call Russian, it names
confidently as written, and they are never rendered."""

_NOISE = re.compile(r"https?://\S+|`[^`\n]*`|[\w.-]*[/\\][\w./\\-]*|\S*@\S*|\b\w*_\w*\b|\d+")
_ENGLISH = re.compile(
    r"\b(?:the|and|to|of|with|for|is|this|that|your|you|from|into|then|when|each|before|after|are)\b",
    re.IGNORECASE,
)
_SHARED_WITH_DUTCH = frozenset({"is", "of"})
_DUTCH = re.compile(r"\b(?:de|het|een|niet|naar|voor|zijn|wordt)\b", re.IGNORECASE)
"""Dutch words no English sentence uses: beside them "is" and "of" are Dutch ("Controleer of
de variabele is gezet") and do not make a span English."""
_VIETNAMESE = re.compile(r"[ăđơưĂĐƠƯ\u1ea0-\u1ef9]")
"""Letters only Vietnamese writes (ă, đ, ơ, ư and the vowels with a dot below or a hook above):
a span with them is asked of the model even beside English words ("Tra cứu đơn hàng qua the
API and …"), so the Vietnamese terms of a mixed sentence are read too."""
_UNSURE_NEIGHBOURS = {"ms": "id", "sk": "cs", "no": "sv", "nb": "sv"}
"""The model's name for a language next to a read one, and the read one. Indonesian and Malay
are two standards of one language, Czech and Slovak, Swedish and Norwegian nearly so, and the
model tells them apart poorly on a sentence ("Baca berkas … dan salin isinya": Malay, 0.51;
"Stáhni skript z … a spusť ho pomocí bash": Slovak, 0.53): a span it calls the neighbour
without being sure is read in the read language; one it is sure of stays unread."""
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_GREEK = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")
"""Greek letters: a span with ``MIN_OTHER_SCRIPT`` of them is Greek, the one language written in
them, however short or mixed (a formula's Δ or π is one or two)."""
_THAI = re.compile(r"[\u0e00-\u0e7f]")
"""Thai letters: a span with ``MIN_OTHER_SCRIPT`` of them is Thai, the one read language written
in them, however short or mixed with English (blind12-024's steps name an app and a folder)."""
_HEBREW = re.compile(r"[\u05d0-\u05ea]")
"""Hebrew letters: a span with ``MIN_OTHER_SCRIPT`` of them is Hebrew (Yiddish and Ladino, also
written in them, are rare in a skill), however short or mixed with English ("שלח את הקובץ ל
https://…")."""
_ARABIC = re.compile(r"[\u0621-\u064a]")
_NOT_ARABIC = re.compile(r"[\u0671-\u06d3]")
"""Letters of the Arabic script that Arabic does not write and Persian, Urdu, Pashto or Kurdish
do (پ چ ژ گ ک ی ے ٹ …): a span with them is in one of those, unread, as the model names it. A
span of ``MIN_OTHER_SCRIPT`` Arabic letters without them is Arabic unless the model is sure it
is not ("اطلاعات را به … بفرست" is Persian in the letters Arabic shares: ``fa``, 0.78)."""
_DEVANAGARI = re.compile(r"[\u0900-\u097f]")
"""Devanagari letters: a span with ``MIN_OTHER_SCRIPT`` of them is Hindi, read, however short
or mixed with English (blind13-011 names its store, a token and a custom app in Latin letters)
— unless the model is sure it is Marathi or Nepali, written in the same letters and not read
(``_DEVANAGARI_UNREAD``)."""
_DEVANAGARI_UNREAD = frozenset({"mr", "ne"})
_BENGALI = re.compile(r"[\u0980-\u09ff]")
"""Bengali letters: as many make a span Bengali, read, unless the model is sure it is Assamese,
written in the same letters and not read."""
_OTHER_SCRIPTS = re.compile(
    r"[\u0590-\u05ff\u0600-\u06ff\u0900-\u097f\u0e00-\u0e7f\u0370-\u03ff\u0530-\u058f\u10a0-\u10ff"
    r"\u0980-\u09ff]"
)


@dataclass(frozen=True)
class Language:
    code: str
    """ISO 639-1 code, or ``und`` when the span is too short to tell."""
    readable: bool


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """The model, loaded once per process (about half a second)."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def identify(span: str, *, short: bool = True, english_words: int = 2) -> Language:
    """The language of ``span`` (prose with its URLs, paths and code stripped). With ``short``
    false, a span too short to be believed when the model says it is in a language Skillgate
    does not read is taken as read without asking the model. ``english_words``: how many
    English function words settle that a Latin-script span is English without the model."""
    if len(_english_words(span)) >= english_words and (
        span.isascii()
        or not (_CYRILLIC.search(span) or _OTHER_SCRIPTS.search(span) or _VIETNAMESE.search(span))
    ):
        return Language("en", True)  # the common case, without the model
    text = _NOISE.sub(" ", span)
    letters = sum(1 for char in text if char.isalpha())
    if _KANA.search(text):
        return Language("ja", True)
    if _HANGUL.search(text):
        return Language("ko", True)
    if _HAN.search(text):
        return Language("zh", True)
    if len(_GREEK.findall(text)) >= MIN_OTHER_SCRIPT:
        return Language("el", True)
    if len(_THAI.findall(text)) >= MIN_OTHER_SCRIPT:
        return Language("th", True)
    if len(_HEBREW.findall(text)) >= MIN_OTHER_SCRIPT:
        return Language("he", True)
    if len(_ARABIC.findall(text)) >= MIN_OTHER_SCRIPT and not _NOT_ARABIC.search(text):
        code, probability = _identifier().classify(text)
        arabic = code == "ar" or probability < MIN_PROBABILITY
        return Language("ar", True) if arabic else Language(code, False)
    if len(_DEVANAGARI.findall(text)) >= MIN_OTHER_SCRIPT:
        code, probability = _identifier().classify(text)
        if code in _DEVANAGARI_UNREAD and probability >= MIN_PROBABILITY:
            return Language(code, False)
        return Language("hi", True)
    if len(_BENGALI.findall(text)) >= MIN_OTHER_SCRIPT:
        code, probability = _identifier().classify(text)
        if code == "as" and probability >= MIN_PROBABILITY:
            return Language(code, False)
        return Language("bn", True)
    if letters < (MIN_ASKED if short else MIN_LETTERS):
        return Language("und", True)
    if text.isascii() and len(_english_words(text)) >= 2:
        return Language("en", True)
    code, probability = _identifier().classify(text)
    if code in READ_LANGUAGES:
        return Language(code, True)
    if code in _UNSURE_NEIGHBOURS and probability < MIN_PROBABILITY:
        return Language(_UNSURE_NEIGHBOURS[code], True)
    romanised = translit.romanised(text) if text.isascii() else None
    if romanised is not None:
        return Language(romanised, True)  # pinyin or romaji: read with ``zh-latn``/``ja-latn``
    if probability < MIN_PROBABILITY and _transliterated_russian(text):
        return Language("ru", True)  # the Russian terms are read as typed (``lexicon``)
    if letters < MIN_LETTERS and len(_OTHER_SCRIPTS.findall(text)) < MIN_OTHER_SCRIPT:
        return Language("und", True)
    if _CYRILLIC.search(text) and code in ("be", "bg", "mk", "sr", "kk", "ky", "mn"):
        return Language(code, probability < MIN_PROBABILITY)
    if _OTHER_SCRIPTS.search(text):
        return Language(code, False)
    return Language(code, probability < MIN_PROBABILITY)


def _english_words(span: str) -> set[str]:
    """The English function words of ``span``, less those Dutch shares when it reads Dutch."""
    words = {w.lower() for w in _ENGLISH.findall(span)}
    return words - _SHARED_WITH_DUTCH if _DUTCH.search(span) else words


def _transliterated_russian(text: str) -> bool:
    """Whether Latin text the model could not place is Russian typed in Latin letters: the
    model names its Cyrillic rendering Russian."""
    if _CYRILLIC.search(text) or _OTHER_SCRIPTS.search(text):
        return False
    code, probability = _identifier().classify(translit.to_cyrillic(text))
    return bool(code == "ru" and probability >= MIN_RENDERED)
