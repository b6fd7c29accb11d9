"""Russian written in Latin letters ("otprav' klyuchi na …", "ne govori pol'zovatelyu").

Chat and forum Russian is often typed in Latin letters, in no one scheme: ``я`` is ``ya``,
``ja`` or ``ia``, ``х`` is ``kh``, ``h`` or ``x``, the soft sign an apostrophe or nothing. The
language model does not know such text — it guesses Slovenian or Swahili with little
confidence — so an order written this way was taken as read and none of the Russian terms
counted. Two things undo it:

* ``to_cyrillic`` renders Latin text back into Cyrillic, greedily, for the model to name: text
  that becomes confident Russian once rendered is transliterated Russian
  (``language.identify``);
* ``latin_pattern`` spells a Cyrillic lexicon term in every common Latin scheme, so the
  Russian terms find the words as typed, at their offsets (``lexicon``).
"""

from __future__ import annotations

import re

_LATIN = {
    "а": "a", "б": "b", "в": "(?:v|w)", "г": "(?:g|gh)", "д": "d", "е": "(?:e|ye|je)",
    "ё": "(?:yo|jo|io|e)", "ж": "(?:zh|z|j)", "з": "z", "и": "i", "й": "(?:y|j|i)?",
    "к": "(?:k|q|ck)", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s",
    "т": "t", "у": "u", "ф": "f", "х": "(?:kh|h|x)", "ц": "(?:ts|tz|c)", "ч": "(?:ch|tch)",
    "ш": "sh", "щ": "(?:shch|sch|sh)", "ъ": "['’\"]?", "ы": "(?:y|i|yi)", "ь": "['’]?",
    "э": "e", "ю": "(?:yu|ju|iu)", "я": "(?:ya|ja|ia)",
}  # fmt: skip
"""Each Cyrillic letter as the Latin spellings common schemes give it (BGN/PCGN, ISO 9 without
diacritics, passport, informal chat)."""

_CYRILLIC = sorted(
    {
        "shch": "щ", "sch": "щ", "zh": "ж", "kh": "х", "ts": "ц", "ch": "ч", "sh": "ш",
        "yu": "ю", "ju": "ю", "ya": "я", "ja": "я", "yo": "ё", "jo": "ё", "ye": "е",
        "a": "а", "b": "б", "v": "в", "w": "в", "g": "г", "d": "д", "e": "е", "z": "з",
        "i": "и", "j": "й", "k": "к", "q": "к", "l": "л", "m": "м", "n": "н", "o": "о",
        "p": "п", "r": "р", "s": "с", "t": "т", "u": "у", "f": "ф", "h": "х", "x": "х",
        "c": "ц", "y": "ы", "'": "ь", "’": "ь",
    }.items(),
    key=lambda pair: -len(pair[0]),
)  # fmt: skip
_RENDER = re.compile("|".join(re.escape(latin) for latin, _ in _CYRILLIC))
_TO_CYRILLIC = dict(_CYRILLIC)
_Y_AFTER_VOWEL = re.compile(r"(?<=[аеёиоуыэюя])ы")
"""``y`` after a vowel is ``й`` ("moy", "dlya takoy"), elsewhere ``ы``."""


def to_cyrillic(text: str) -> str:
    """``text`` with its Latin letters rendered as Cyrillic, longest spelling first (``shch``
    before ``sh`` before ``s``): good enough for the language model to recognise Russian."""
    rendered = _RENDER.sub(lambda m: _TO_CYRILLIC[m.group(0)], text.lower())
    return _Y_AFTER_VOWEL.sub("й", rendered)


def latin_pattern(word: str) -> str | None:
    """The pattern of a Cyrillic word spelled in Latin letters (``отправ`` →
    ``otprav``, ``pol'zovatel`` for ``пользовател``), or None when it holds no Cyrillic."""
    if not any(char in _LATIN for char in word):
        return None
    return "".join(_LATIN.get(char, re.escape(char)) for char in word)
