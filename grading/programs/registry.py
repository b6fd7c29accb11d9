"""Windows registry writes that switch a protection off, read in every form an agent applies.

A ``.reg`` file is a program: ``reg import baseline.reg`` sets every value it lists, with the
rights of whoever imports it. So is a ``reg add … /v NAME /d VALUE`` line and a PowerShell
``Set-ItemProperty`` / ``New-ItemProperty -Path HKLM:\\… -Name NAME -Value VALUE``. No pattern
rule reads them: the values are numbers under key paths, and what a number does depends on the
key and the value name. The .NET API does the same from PowerShell or C#
(``[Microsoft.Win32.Registry]::SetValue('HKEY_LOCAL_MACHINE\\…', 'NAME', 1)``,
``Registry.LocalMachine.CreateSubKey(@"…").SetValue("NAME", 1)``). ``writes`` reads the forms
into (key, name, data) and ``weakenings`` keeps those that turn a protection off: SMB signing
not required, SMB1 on, NTLM accepting LM responses, WDigest keeping cleartext passwords, LSA
protection off, UAC off, Defender or its real-time scanning off, a whole drive excluded from
scanning, the firewall off, printer drivers installed without elevation or warning. Each is a
real setting a lab or a broken machine may need, so one alone is a capability a person decides
on; sold as a hardening or a CVE fix, the stated purpose contradicts the act
(``bundle.applied.pretext``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_SECTION = re.compile(r"(?m)^[ \t]*\[(-?)(HKEY_[^\]\n]{1,300})\][ \t]*$")
_VALUE = re.compile(
    r'(?m)^[ \t]*"((?:[^"\\\n]|\\.){1,200})"[ \t]*=[ \t]*(dword:[0-9a-fA-F]{1,8}|"[^"\n]*")'
)
_REG_ADD = re.compile(
    r"(?i)\breg(?:\.exe)?\s+add\s+[\"']?(HK[^\s\"']{2,300})[\"']?"
    r"(?=[^\n]*?/v\s+[\"']?([^\s\"'/]{1,120}))(?=[^\n]*?/d\s+[\"']?([^\s\"']{1,120}))"
)
_SET_PROPERTY = re.compile(
    r"(?i)\b(?:Set|New)-ItemProperty\b(?=[^\n]*?-Path\s+[\"']?((?:HK\w{1,4}:|Registry::)[^\"'\n]{2,300}?)[\"']?(?:\s+-|\s*$))"
    r"(?=[^\n]*?-Name\s+[\"']?([^\s\"']{1,120}))(?=[^\n]*?-Value\s+[\"']?([^\s\"']{1,120}))"
)

_DOTNET_SET = re.compile(
    r"(?i)\bRegistry\]?(?:::|\.)SetValue\s*\(\s*@?[\"']((?:HKEY_|HK\w{1,4}:)[^\"'\n]{2,300})[\"']"
    r"\s*,\s*@?[\"']([^\"'\n]{1,120})[\"']\s*,\s*[\"']?(\w{1,40})"
)
_DOTNET_SUBKEY = re.compile(
    r"(?i)\bRegistry(?:\]::|\.)(LocalMachine|CurrentUser|Users)\s*\.\s*(?:Create|Open)SubKey\s*\("
    r"\s*@?[\"']([^\"'\n]{2,300})[\"'][^\n]{0,80}?\.SetValue\s*\(\s*@?[\"']([^\"'\n]{1,120})[\"']"
    r"\s*,\s*[\"']?(\w{1,40})"
)
"""A write through the .NET registry API: the static ``Registry.SetValue`` with the full key,
or a hive's ``CreateSubKey``/``OpenSubKey`` chained to ``SetValue`` on one line."""
_HIVES = {"localmachine": "HKEY_LOCAL_MACHINE", "currentuser": "HKEY_CURRENT_USER",
          "users": "HKEY_USERS"}  # fmt: skip


@dataclass(frozen=True)
class Write:
    offset: int
    key: str
    name: str
    data: str


@dataclass(frozen=True)
class Weakening:
    offset: int
    detail: str


_SMB = r"lanman(?:server|workstation)\\parameters"
_REALTIME = (
    r"disable(?:realtimemonitoring|behaviormonitoring|ioavprotection|onaccessprotection"
    r"|scriptscanning)"
)
_WHOLE_DRIVE = r"[a-z]:\\\\?|%?(?:systemdrive|userprofile)%?\\?\\?"
_DRIVERS_BY_ANYONE = "restrictdriverinstallationtoadministrators"
_RDP = r"terminal server\\winstations\\rdp-tcp"
_SCRIPT_LOG = r"powershell\\scriptblocklogging"
_RULES: tuple[tuple[str, str, str, str], ...] = (
    # key (a suffix of the path, lower case), value name, the data that weakens, what it does
    (_SMB, "requiresecuritysignature", "0", "SMB signing not required"),
    (_SMB, "enablesecuritysignature", "0", "SMB signing off"),
    (r"lanmanserver\\parameters", "smb1", "1", "SMB1 switched on"),
    (r"lanmanworkstation\\parameters", "allowinsecureguestauth", "1", "insecure guest logons"),
    (r"control\\lsa", "lmcompatibilitylevel", "[012]", "NTLM accepts LM and NTLMv1 responses"),
    (r"control\\lsa", "runasppl", "0", "LSA protection off"),
    (r"control\\lsa", "nolmhash", "0", "LM hashes stored"),
    (r"control\\lsa", "limitblankpassworduse", "0", "blank passwords allowed over the network"),
    (r"wdigest", "uselogoncredential", "1", "WDigest keeps cleartext passwords in memory"),
    (r"policies\\system", "enablelua", "0", "UAC off"),
    (r"policies\\system", "consentpromptbehavioradmin", "0", "elevation without a prompt"),
    (r"policies\\system", "localaccounttokenfilterpolicy", "1", "remote admin tokens unfiltered"),
    (r"windows defender", "disableanti(?:spyware|virus)", "1", "Defender off"),
    (r"real-time protection", _REALTIME, "1", "Defender real-time protection off"),
    (r"windows defender\\features", "tamperprotection", "[04]", "Defender tamper protection off"),
    (r"exclusions\\paths", _WHOLE_DRIVE, ".*", "a whole drive or profile excluded from scanning"),
    (r"(?:firewallpolicy|windowsfirewall)\\\w*profile", "enablefirewall", "0", "firewall off"),
    (r"pointandprint", _DRIVERS_BY_ANYONE, "0", "anyone installs printer drivers"),
    (r"pointandprint", "nowarningnoelevationoninstall", "1", "printer drivers installed silently"),
    (_RDP, "userauthentication", "0", "RDP without network level authentication"),
    (_SCRIPT_LOG, "enablescriptblocklogging", "0", "PowerShell script logging off"),
    (r"windows\\system", "enablesmartscreen", "0", "SmartScreen off"),
)
_COMPILED = tuple(
    (re.compile(rf"(?:^|\\){key}$"), re.compile(name), re.compile(data), what)
    for key, name, data, what in _RULES
)


def _number(data: str) -> str:
    """The value as a decimal string: ``dword:00000001`` → ``1``, ``/d 0x1`` → ``1``."""
    raw = data.strip().strip('"').lower()
    try:
        if raw.startswith("dword:"):
            return str(int(raw[6:], 16))
        return str(int(raw, 16)) if raw.startswith("0x") else str(int(raw))
    except ValueError:
        return raw


def writes(text: str, *, reg_file: bool) -> Iterator[Write]:
    """The registry values ``text`` sets: a ``.reg`` file's sections and values, and the
    ``reg add`` and ``Set-ItemProperty`` lines of a script or a code block."""
    if reg_file:
        sections = list(_SECTION.finditer(text))
        for number, section in enumerate(sections):
            if section.group(1):  # [-HKEY_…] deletes the key
                continue
            end = sections[number + 1].start() if number + 1 < len(sections) else len(text)
            for value in _VALUE.finditer(text, section.end(), end):
                yield Write(value.start(), section.group(2), value.group(1), value.group(2))
        return
    lowered = text.lower()  # each spelling's own word first: most texts hold none of them
    for match in _REG_ADD.finditer(text) if "reg" in lowered and "add" in lowered else ():
        yield Write(match.start(), match.group(1), match.group(2), match.group(3))
    for match in _SET_PROPERTY.finditer(text) if "itemproperty" in lowered else ():
        yield Write(match.start(), match.group(1), match.group(2), match.group(3))
    if "registry" not in lowered:
        return
    for match in _DOTNET_SET.finditer(text):
        yield Write(match.start(), match.group(1), match.group(2), match.group(3))
    for match in _DOTNET_SUBKEY.finditer(text):
        key = _HIVES[match.group(1).lower()] + "\\" + match.group(2).replace("\\\\", "\\")
        yield Write(match.start(), key, match.group(3), match.group(4))


def weakenings(text: str, *, reg_file: bool) -> list[Weakening]:
    """The writes of ``text`` that switch a protection off, one per protection."""
    found: dict[str, Weakening] = {}
    for write in writes(text, reg_file=reg_file):
        key = write.key.lower().replace("/", "\\").rstrip("\\")
        name = write.name.lower().replace("\\\\", "\\")
        data = _number(write.data)
        for key_rule, name_rule, data_rule, what in _COMPILED:
            if (
                key_rule.search(key)
                and name_rule.fullmatch(name)
                and data_rule.fullmatch(data)
                and what not in found
            ):
                found[what] = Weakening(write.offset, f"{what} ({write.name} = {data})")
    return sorted(found.values(), key=lambda item: item.offset)
