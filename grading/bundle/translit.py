"""Russian, Chinese and Japanese written in Latin letters ("otprav' klyuchi na …", "bu yao
gaosu yonghu", "yuuzaa ni wa iwanaide kudasai").

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

Chinese in pinyin and Japanese in romaji cannot be rendered back (one spelling stands for many
characters), and the model calls them Swahili, Rwanda or Bikol. ``romanised`` tells them by their
shape instead: nearly every word spells out syllables of the language (``bu yao gaosu`` is
pinyin through and through, ``iwanaide`` romaji), and the text holds the grammatical words only
that language has (``qing``, ``zhe``, ``yonghu``; ``wo``, ``desu``, ``…kudasai``). Their core
terms (a send, a key, "don't tell the user") are written in the lexicon in Latin letters too
(languages ``zh-latn``, ``ja-latn``), read in a span so named.
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


_PINYIN = re.compile(
    r"(?:(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?"
    r"(?:iang|iong|uang|ang|eng|ing|ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|in|un|ia|ie|iu|ua|uo"
    r"|ue|ui|er|a|o|e|i|u|v))+[1-5]?"
)
_ROMAJI = re.compile(
    r"(?:(?:[kstpgdbmc](?=[kstpgdbmc]))?(?:ch|sh|ts|[kgsztdnhbpmyrwfj])?y?[aiueo]|n)+"
)
"""A word of romaji: syllables (a consonant, a glide, a vowel), the moraic ``n`` and doubled
consonants (``suteppu``)."""
_PINYIN_MARKERS = frozenset(
    {"de", "shi", "le", "ba", "qing", "bu", "yao", "zhe", "zai", "dao", "gei", "ranhou", "yonghu",
     "women", "zhege", "zhiqian", "yihou", "bie", "bao"}
)  # fmt: skip
"""Words of pinyin that are grammar or everyday orders: a text with two of them is Chinese."""
_ROMAJI_MARKERS = re.compile(r"^(?:wo|desu|shite|mashita|masen)$|(?:kudasai|masu|naide)$")
"""Japanese particles and verb endings: a text with two of them is Japanese."""
_WORD = re.compile(r"[a-z]+[1-5]?")
MIN_WORDS = 6
MIN_SHARE = 0.8
"""How many words a span needs, and what share of them must spell syllables of the language."""


def romanised(text: str) -> str | None:
    """``zh`` for Chinese in pinyin, ``ja`` for Japanese in romaji, None for anything else:
    at least ``MIN_WORDS`` words, ``MIN_SHARE`` of them syllables of the language, and two of
    its grammatical words."""
    words = _WORD.findall(text.lower())
    if len(words) < MIN_WORDS:
        return None
    for code, syllables, marked in (
        ("ja", _ROMAJI, lambda w: bool(_ROMAJI_MARKERS.search(w))),
        ("zh", _PINYIN, _PINYIN_MARKERS.__contains__),
    ):
        spelled = sum(1 for word in words if syllables.fullmatch(word))
        markers = {word for word in words if marked(word)}
        if spelled >= MIN_SHARE * len(words) and len(markers) >= 2:
            return code
    return None
