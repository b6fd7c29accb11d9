"""Programs in languages no parser here reads (Go, Ruby, Rust, Lua, PHP, Perl, Java, C#…).

A skill may ship its collector as ``main.go`` or ``audit.rb``: no syntax tree follows values
there, so the program is read by its tokens, with the vocabularies the parsed languages share
(``sensitive``). What is read:

* its string constants, each alone and folded with its neighbours when the code joins them
  (``"~/.s" + "sh"``, ``'.aw' . 's'``, ``".a" .. "ws"``), and character-code lists
  (``[104, 116, 116, 112, …]``) decoded;
* a *secret source*: a constant naming a credential, key, browser, wallet or agent store, or a
  call that takes the whole environment (``os.Environ()``, ``ENV.to_h``, ``env::vars()``,
  ``getenv()``, ``%ENV``, ``System.getenv()``);
* a *network send*: a library call that posts, uploads or opens a socket (``http.Post``,
  ``http.NewRequest("POST"…`` or with ``http.MethodPost`` or a body reader, a Go client's
  ``c.Post(url, "application/json", body)``, ``Net::HTTP.post``, ``reqwest`` ``.post(``,
  ``curl_exec``, ``LWP::UserAgent``, mail sent over SMTP (Ruby's ``Net::SMTP``, JavaMail's
  ``Transport.send``, .NET's ``SmtpClient``, Go's ``smtp.SendMail``, Rust's ``lettre``),
  ``socket.http``, ``HttpClient``, Swift's ``httpMethod = "POST"``, OkHttp, .NET's
  ``WebRequest``, Dart's ``http.post``, R's ``httr::POST`` and ``req_body_json``, a
  WebSocket opened in any of them, an AppleScript message sent through the user's own Mail or
  Messages account…), and the hosts of the file's URLs. A host assembled at run time
  (``c.Scheme + "://" + c.Host + "." + c.Domain``, from a configuration file) is nobody's
  declared host.

A secret source and a network send in one program file is ``SECRET_SEND``: without a parser the
value cannot be followed from one to the other, so it is read as the program's purpose (a
collector that reads ``~/.ssh`` and posts is what it looks like) — two signals, at a lower
certainty than a followed flow. A named token from the environment (``os.Getenv("X_TOKEN")``) is
no source: it authenticates to its own service. A decoded constant that is a path, a URL or a
command is ``DECODED_STRING``.
"""

from __future__ import annotations

import re

from grading import linear
from grading.programs import sensitive
from grading.programs.facts import DECODED_STRING, NETWORK_SEND, SECRET_READ, SECRET_SEND, Fact

MAX_SOURCE = 512 * 1024
"""Larger files are left to the pattern rules (as for the parsed languages)."""

SUFFIXES = frozenset(
    {".go", ".rb", ".rs", ".lua", ".php", ".pl", ".pm", ".java", ".kt", ".kts", ".cs", ".swift",
     ".scala", ".dart", ".ex", ".exs", ".groovy", ".cr", ".nim", ".jl", ".r", ".c", ".cc", ".cpp",
     ".csx", ".fs", ".fsx", ".vb", ".applescript"}
)  # fmt: skip
"""Languages a skill ships programs in that no analysis here parses."""
FENCE_LANGUAGES = frozenset(
    {"go", "golang", "ruby", "rb", "rust", "rs", "lua", "php", "perl", "java", "kotlin", "kt",
     "csharp", "cs", "c#", "swift", "scala", "dart", "elixir", "groovy", "crystal", "nim", "julia",
     "applescript"}
)  # fmt: skip
"""The same languages as the names of Markdown code fences."""
_SHEBANG = re.compile(r"\A#![^\n]{0,80}\b(?:ruby|perl|php|lua|luajit)\b")

_STRING = linear.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`([^`]*)`')
_JOIN = re.compile(r"\s{0,4}(?:\+|\.\.?|<<)\s{0,4}\Z")
"""What joins two constants in the languages read here: ``+``, PHP's and Perl's ``.``, Lua's
``..``, Ruby's ``<<``."""
_CODES = linear.compile(r"[\[{(]\s*((?:\d{2,3}\s*,\s*){5,}\d{2,3})\s*,?\s*[\]})]")
"""A list of at least six character codes."""

_WHOLE_ENV = linear.compile(
    r"\bos\.Environ\(\)|\bENV\.(?:to_h|to_a|to_hash|each\w*|map|inspect|keys|select|filter_map)\b"
    r"|\benv::vars(?:_os)?\(\)|\bgetenv\(\s*\)|\$_ENV\b|(?:keys|values|each|encode_json\(?)\s*\\?%ENV\b"
    r"|\\%ENV\b|\bSystem\.getenv\(\s*\)|\bEnvironment\.GetEnvironmentVariables\(\)"
    r"|\bSystem\.get_env\(\s*\)|\bProcessInfo\.processInfo\.environment\b"
)
"""A call that takes every variable of the environment (with the secrets among them)."""
_SENDS = linear.compile(
    r"\bhttp\.(?:Post|PostForm)\(|\bhttp\.NewRequest(?:WithContext)?\([^)\n]{0,40}\"(?:POST|PUT|PATCH)\""
    r"|\bhttp\.NewRequest(?:WithContext)?\([^)\n]{0,60}\bhttp\.Method(?:Post|Put|Patch)\b"
    r"|\bhttp\.NewRequest(?:WithContext)?\([^\n]{0,120}\b(?:bytes|strings)\.New(?:Reader|Buffer\w*)\("
    r"|\.(?:Post|PostForm)\(\s*[\w.]+\s*,\s*\"[\w.+-]+/[\w.+-]+\""
    r"|\bnet\.Dial\w*\(|\bNet::HTTP(?:\.post|\.post_form|::Post\b|::Put\b|\.start\b)"
    r"|\b(?:HTTParty|RestClient|Faraday|Excon|HTTP)\.(?:post|put)\b|\bTCPSocket\.(?:new|open)\b"
    r"|\breqwest::|\bureq::(?:post|put)\b|\bTcpStream::connect\b|\.post\(\s*&?\s*(?:format!|url|\"https?:)"
    r"|\bcurl_exec\b|CURLOPT_POSTFIELDS|\bfsockopen\b|\bstream_context_create\b|GuzzleHttp"
    r"|\bLWP::UserAgent\b|\bHTTP::Request->new\(\s*['\"]?(?:POST|PUT)|\bIO::Socket::INET\b|->post\("
    r"|\bsocket\.http\b|\bhttp\.request\(|\bltn12\.source\b"
    r"|\bHttpURLConnection\b|\bsetDoOutput\(\s*true|\.POST\(|\bHttpClient\b|\.PostAsync\("
    r"|\.Upload(?:String|File|Data)\b|\bURLSession\b[^\n]{0,80}\bupload|\bHTTPoison\.post\b"
    r"|\bReq\.post\b|\bMint\.HTTP\b|\bsocket\.(?:tcp|connect)\b"
    r"|\.httpMethod\s*=\s*\"(?:POST|PUT|PATCH)\"|\bOkHttpClient\b|\.toRequestBody\("
    r"|\bBodyPublishers\.of|\bWebRequest\.Create\b|\.GetRequestStream\("
    r"|\bhttpx?\.(?:post|put|patch)\(|\.(?:postUrl|putUrl)\("
    r"|\b(?:httr::)?(?:POST|PUT|PATCH)\(\s*(?:url\b|[\"'])|\breq_body_(?:raw|json|form|multipart|file)\("
    r"|\bhandle_setopt\([^)\n]{0,80}\bpostfields\b"
    r"|\bWebSocket(?:Channel)?\.connect\b|\bClientWebSocket\b|\bwebsocket\.(?:Dial|DefaultDialer)\b"
    r"|\b(?:tungstenite::connect|connect_async)\b"
    r"|\bmake\s+new\s+outgoing\s+message\b|\bsend\s+\S+\s+to\s+(?:buddy|participant)\b"
    r"|\bNet::SMTP\b|\bTransport\.send\(|\bSmtpClient\b|\bsmtp\.SendMail\(|\blettre::"
)
"""Library calls that send data over the network, in the languages read here."""


_FILLED_QUERY = linear.compile(
    r"[\"'`]https?://[^\"'`\s?]{1,200}\?[^\"'`\s]{0,200}="
    r"(?:[\"'`]\s{0,4}(?:\+|\.\.?|<<)|#\{|\$\{|\$[A-Za-z_]|\\\(|\{[A-Za-z_]|%[sv])"
)
"""A URL whose query parameter is filled at run time (``"https://h/v?m=" + key``, Ruby's
``"…?c=#{creds}"``, Kotlin's ``"…?k=$key"``, Swift's ``"…?k=\\(key)"``, C#'s ``$"…?k={key}"``):
requesting it sends the value, whatever the verb — a GET carries data in its address."""
_COMMA = re.compile(r"\s{0,4},\s{0,4}\Z")
"""What separates the arguments of a path-joining call (``File.join(Dir.home, ".gem",
"credentials")``, ``filepath.Join(home, ".ssh", "id_rsa")``, ``Path.Combine``)."""


def is_unparsed_program(path: str, text: str) -> bool:
    """A program in a language no parser here reads: by its suffix, or by its ``#!`` line."""
    name = path.rsplit("/", 1)[-1].lower()
    suffix = name[name.rfind(".") :] if "." in name else ""
    return suffix in SUFFIXES or (not suffix and _SHEBANG.match(text) is not None)


def analyse(text: str) -> list[Fact]:
    """The facts of one program file (see the module docstring); offsets are in ``text``."""
    if len(text) > MAX_SOURCE:
        return []
    constants = _constants(text)
    found: list[Fact] = []
    source: tuple[int, str] | None = None
    for offset, value, decoded in constants:
        meaning = sensitive.meaningful(value) if decoded else None
        if meaning is not None:
            found.append(Fact(DECODED_STRING, offset, f"character codes decode to {meaning}"))
        if source is None and sensitive.is_sensitive_path(value):
            source = (offset, f"reads {value.strip()[:60]!r}")
    harvest = _WHOLE_ENV.search(text)
    if source is None and harvest is not None:
        source = (harvest.start(), f"takes the whole environment ({harvest.group().strip()})")
    send = _SENDS.search(text) or _FILLED_QUERY.search(text)
    hosts = tuple(
        dict.fromkeys(h for _, v, _ in constants if (h := sensitive.host_of(v)) is not None)
    )
    if source is not None and send is not None:
        detail = f"{source[1]} and sends with {send.group().strip()[:40]}; to {_named(hosts)}"
        found.append(Fact(SECRET_SEND, send.start(), detail, hosts))
    elif source is not None:
        found.append(Fact(SECRET_READ, source[0], source[1]))
    elif send is not None:
        found.append(Fact(NETWORK_SEND, send.start(), f"to {_named(hosts)}", hosts))
    return found


def _named(hosts: tuple[str, ...]) -> str:
    return ", ".join(hosts[:3]) if hosts else "a host built at run time"


def _constants(text: str) -> list[tuple[int, str, bool]]:
    """(offset, value, decoded) of every string constant, of every run of constants the code
    joins, of every run of constants listed one after another (joined with ``/``, as a path
    join would), and of every character-code list."""
    found: list[tuple[int, str, bool]] = []
    run: list[str] = []
    listed: list[str] = []  # constants given one after another to a call: path pieces
    run_start, run_end, listed_start = 0, -1, 0
    for match in _STRING.finditer(text):
        value = next(g for g in match.groups() if g is not None)
        found.append((match.start(), value, False))
        between = text[run_end : match.start()] if run_end >= 0 else "\n"
        if run and _JOIN.match(between):
            run.append(value)
        else:
            if len(run) > 1:
                found.append((run_start, "".join(run), False))
            run, run_start = [value], match.start()
        if listed and _COMMA.match(between):
            listed.append(value)
        else:
            if len(listed) > 1:
                found.append((listed_start, "/".join(listed), False))
            listed, listed_start = [value], match.start()
        run_end = match.end()
    if len(run) > 1:
        found.append((run_start, "".join(run), False))
    if len(listed) > 1:
        found.append((listed_start, "/".join(listed), False))
    for match in _CODES.finditer(text):
        codes = [int(c) for c in re.findall(r"\d+", match.group(1))]
        if all(32 <= c < 127 or c in (9, 10) for c in codes):
            found.append((match.start(), "".join(map(chr, codes)), True))
    return found
